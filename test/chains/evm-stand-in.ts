/**
 * A real HTTP JSON-RPC endpoint in front of Anvil that misbehaves on demand, as providers do:
 * answers 429 or 500, refuses eth_getLogs ranges wider than a limit (-32005), or refuses JSON-RPC
 * batches larger than a limit (HTTP 413). Everything else is forwarded to Anvil as is.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface StandIn {
  url: string;
  /** Requests answered so far, by method ("batch" for a batch). */
  calls: string[];
  /** The next n requests answer this status. */
  fail(status: number, n?: number): void;
  /** eth_getLogs over more than this many blocks is refused (-32005); undefined = no limit. */
  maxLogRange: number | undefined;
  /** Batches larger than this are refused with HTTP 413. */
  maxBatch: number | undefined;
  close(): Promise<void>;
}

export async function startStandIn(target: string): Promise<StandIn> {
  let failing: { status: number; left: number } | undefined;
  const state = { maxLogRange: undefined as number | undefined, maxBatch: undefined as number | undefined };
  const calls: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString();
        const parsed = JSON.parse(body) as { id?: number; method?: string; params?: unknown[] } | unknown[];
        const method = Array.isArray(parsed) ? "batch" : (parsed.method ?? "?");
        calls.push(method);
        if (failing && failing.left > 0) {
          failing.left -= 1;
          res.writeHead(failing.status, { "content-type": "text/plain", "retry-after": "0" }).end("busy");
          return;
        }
        if (Array.isArray(parsed) && state.maxBatch !== undefined && parsed.length > state.maxBatch) {
          res.writeHead(413).end("request entity too large");
          return;
        }
        if (!Array.isArray(parsed) && method === "eth_getLogs" && state.maxLogRange !== undefined) {
          const filter = parsed.params?.[0] as { fromBlock: string; toBlock: string };
          const width = Number(BigInt(filter.toBlock)) - Number(BigInt(filter.fromBlock)) + 1;
          if (width > state.maxLogRange) {
            res.writeHead(200, { "content-type": "application/json" }).end(
              JSON.stringify({
                jsonrpc: "2.0",
                id: parsed.id,
                error: { code: -32005, message: `query returned more than 10000 results` },
              }),
            );
            return;
          }
        }
        const upstream = await fetch(target, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        res.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
      })().catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    fail(status, n = Number.MAX_SAFE_INTEGER) {
      failing = { status, left: n };
    },
    get maxLogRange() {
      return state.maxLogRange;
    },
    set maxLogRange(v) {
      state.maxLogRange = v;
    },
    get maxBatch() {
      return state.maxBatch;
    },
    set maxBatch(v) {
      state.maxBatch = v;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
