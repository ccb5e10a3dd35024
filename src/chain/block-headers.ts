/**
 * Block headers without their transactions: java-tron's wallet/getblock {id_or_num, detail: false}.
 * A catch-up needs every block's hash and parentHash but none of its transactions (the transaction
 * infos carry the logs), and a mainnet block with its ~300 transactions is ~350 KB of JSON for the
 * node to build and for us to parse, where the header is ~400 bytes.
 *
 * The toolkit's node client has no getblock call yet, so this one request is made here with the
 * same conventions (TRON-PRO-API-KEY header, timeout, TronNodeError kinds); it belongs in
 * src/tron/node-client.ts and should move there.
 */
import { Pool, request } from "undici";
import { TronNodeError } from "../tron/node-client.js";
import type { BlockJson } from "../tron/node-types.js";

export interface HeaderClient {
  /**
   * The header of block n (no transactions), or null when the node has no such block; with
   * `solidified`, from the solidified chain (walletsolidity/getblock): null until n is solidified.
   */
  getBlockHeader(n: number, options?: { solidified?: boolean }): Promise<BlockJson | null>;
  close(): Promise<void>;
}

export function createHeaderClient(options: {
  baseUrl: string;
  apiKey?: string | undefined;
  timeoutMs?: number;
}): HeaderClient {
  const url = new URL(options.baseUrl);
  const base = url.origin + url.pathname.replace(/\/+$/, "");
  const pool = new Pool(url.origin, { connections: 16, keepAliveTimeout: 30_000 });
  const timeoutMs = options.timeoutMs ?? 10_000;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (options.apiKey) headers["TRON-PRO-API-KEY"] = options.apiKey;

  return {
    async getBlockHeader(n, o = {}) {
      const PATH = o.solidified ? "/walletsolidity/getblock" : "/wallet/getblock";
      const endpoint = base + PATH;
      let status: number;
      let text: string;
      try {
        const res = await request(endpoint, {
          method: "POST",
          headers,
          body: JSON.stringify({ id_or_num: String(n), detail: false }),
          dispatcher: pool,
          signal: AbortSignal.timeout(timeoutMs),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        status = res.statusCode;
        text = await res.body.text();
      } catch (error) {
        const e = error as { name?: string; code?: string };
        const timedOut =
          e?.name === "TimeoutError" || e?.name === "AbortError" || /TIMEOUT/.test(e?.code ?? "");
        // Never the error's own text: it could carry the URL; the kind is what callers act on.
        throw new TronNodeError(
          timedOut ? "timeout" : "network",
          PATH,
          timedOut ? "timed out" : "request failed",
          {
            cause: error,
          },
        );
      }
      if (status === 429) throw new TronNodeError("rate_limited", PATH, "rate limited (429)", { status });
      if (status >= 500) throw new TronNodeError("server", PATH, `server error ${status}`, { status });
      if (status < 200 || status >= 300) throw new TronNodeError("http", PATH, `HTTP ${status}`, { status });
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new TronNodeError("malformed", PATH, "response is not JSON", { status });
      }
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw new TronNodeError("malformed", PATH, "expected a JSON object", { status });
      }
      const block = body as Partial<BlockJson> & { Error?: unknown };
      if (typeof block.Error === "string") {
        throw new TronNodeError(
          /busy|too many/i.test(block.Error) ? "busy" : "validation",
          PATH,
          "node error",
          {
            status,
          },
        );
      }
      if (Object.keys(block).length === 0) return null;
      if (typeof block.blockID !== "string" || typeof block.block_header?.raw_data?.parentHash !== "string") {
        throw new TronNodeError("malformed", PATH, "response is not a block header", { status });
      }
      return block as BlockJson;
    },
    close: () => pool.close(),
  };
}
