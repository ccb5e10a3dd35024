/**
 * One EVM JSON-RPC endpoint over HTTP. A call is one HTTP request; `batch` sends a JSON-RPC batch
 * (several calls in one HTTP request), which the scanner uses for a range's block headers. Failures
 * carry the fields every family's node errors have (../node-call-error.ts), so retries and failover
 * treat them alike: 429, 5xx, timeouts, refused connections and malformed bodies are retryable; a
 * provider refusing a log range as too large (`rangeTooLarge`: HTTP 413, -32005, "more than 10000
 * results", "block range is too wide" and their kin) is not retried as is but read in smaller parts.
 * Error messages never carry the URL (a provider's key may be in its path).
 */
import type { NodeCallError } from "../node-call-error.js";

export type RpcErrorKind =
  "http_429" | "http_5xx" | "http" | "timeout" | "network" | "malformed" | "rpc" | "range";

export class EvmRpcError extends Error implements NodeCallError {
  readonly retryable: boolean;
  readonly rangeTooLarge: boolean;

  constructor(
    readonly kind: RpcErrorKind | "missing_block",
    readonly method: string,
    message: string,
    readonly retryAfterMs?: number,
    readonly code?: string,
  ) {
    super(`${method}: ${message}`);
    this.name = "EvmRpcError";
    this.rangeTooLarge = kind === "range";
    this.retryable = ["http_429", "http_5xx", "timeout", "network", "malformed", "missing_block"].includes(
      kind,
    );
  }
}

export interface RpcCall {
  method: string;
  params: readonly unknown[];
}

export interface RpcRequestEvent {
  method: string;
  durationMs: number;
  errorKind?: string | undefined;
}

export interface RpcClient {
  readonly url: string;
  readonly requestCount: number;
  call<T>(method: string, params: readonly unknown[]): Promise<T>;
  /** Every call in one HTTP request; the answers in the calls' order. */
  batch<T>(calls: readonly RpcCall[]): Promise<T[]>;
  close(): Promise<void>;
}

export interface RpcClientOptions {
  url: string;
  /** Per HTTP request (default 15 s). */
  timeoutMs?: number;
  onRequest?: (e: RpcRequestEvent) => void;
}

/** Provider wordings of "this log range or result is too large" (besides HTTP 413 and -32005). */
const RANGE_MESSAGES = [
  /more than \d+ results/i,
  /block range/i,
  /range (is )?too (large|wide|big)/i,
  /too many (blocks|results|logs)/i,
  /exceed(s|ed)? .*(range|limit|results|max)/i,
  /response size/i,
  /query timeout/i,
  /limited to \d+/i,
];

interface JsonRpcReply {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

export function createRpcClient(options: RpcClientOptions): RpcClient {
  const timeoutMs = options.timeoutMs ?? 15_000;
  let requests = 0;
  let nextId = 1;

  async function post(method: string, body: unknown): Promise<unknown> {
    requests += 1;
    const started = performance.now();
    let errorKind: string | undefined;
    try {
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const name = (error as { name?: string }).name;
        if (name === "TimeoutError" || name === "AbortError")
          throw new EvmRpcError("timeout", method, `no answer within ${timeoutMs} ms`);
        throw new EvmRpcError("network", method, "the endpoint could not be reached");
      }
      const text = await response.text().catch(() => "");
      if (response.status === 413) throw new EvmRpcError("range", method, "HTTP 413 (request too large)");
      if (response.status === 429)
        throw new EvmRpcError("http_429", method, "HTTP 429 (rate limited)", retryAfter(response));
      if (response.status >= 500) {
        if (RANGE_MESSAGES.some((re) => re.test(text)))
          throw new EvmRpcError("range", method, `HTTP ${response.status}: the range is too large`);
        throw new EvmRpcError("http_5xx", method, `HTTP ${response.status}`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new EvmRpcError(
          response.ok ? "malformed" : "http",
          method,
          `HTTP ${response.status}, not JSON`,
        );
      }
      if (!response.ok && !isReply(parsed) && !Array.isArray(parsed))
        throw new EvmRpcError("http", method, `HTTP ${response.status}`);
      return parsed;
    } catch (error) {
      errorKind = error instanceof EvmRpcError ? error.kind : "network";
      throw error;
    } finally {
      options.onRequest?.({ method, durationMs: performance.now() - started, errorKind });
    }
  }

  function resultOf<T>(method: string, reply: unknown): T {
    if (!isReply(reply)) throw new EvmRpcError("malformed", method, "not a JSON-RPC reply");
    if (reply.error) throw replyError(method, reply.error);
    if (!("result" in reply)) throw new EvmRpcError("malformed", method, "a reply without a result");
    return reply.result as T;
  }

  return {
    url: options.url,
    get requestCount() {
      return requests;
    },
    async call<T>(method: string, params: readonly unknown[]): Promise<T> {
      const reply = await post(method, { jsonrpc: "2.0", id: nextId++, method, params });
      return resultOf<T>(method, reply);
    },
    async batch<T>(calls: readonly RpcCall[]): Promise<T[]> {
      if (calls.length === 0) return [];
      const first = nextId;
      nextId += calls.length;
      // Metrics label a batch by its first method (a range's headers: eth_getBlockByNumber).
      const what = calls[0]?.method ?? "batch";
      const replies = await post(
        what,
        calls.map((c, i) => ({ jsonrpc: "2.0", id: first + i, method: c.method, params: c.params })),
      );
      if (!Array.isArray(replies)) {
        // A provider without batches answers one error object for the whole request.
        if (isReply(replies) && replies.error) throw replyError(what, replies.error);
        throw new EvmRpcError("malformed", what, "a batch answered with no array");
      }
      const byId = new Map<unknown, unknown>();
      for (const r of replies) if (isReply(r)) byId.set(r.id, r);
      return calls.map((c, i) => {
        const reply = byId.get(first + i);
        if (reply === undefined) throw new EvmRpcError("malformed", c.method, "a batch reply is missing");
        return resultOf<T>(c.method, reply);
      });
    },
    close: () => Promise.resolve(),
  };
}

function isReply(value: unknown): value is JsonRpcReply {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function replyError(method: string, error: { code?: unknown; message?: unknown }): EvmRpcError {
  const code = typeof error.code === "number" ? error.code : undefined;
  const message = typeof error.message === "string" ? error.message.slice(0, 200) : "error";
  const codeText = code === undefined ? undefined : String(code);
  if (code === -32005 || RANGE_MESSAGES.some((re) => re.test(message)))
    return new EvmRpcError("range", method, message, undefined, codeText);
  // Rate limits some providers send as a JSON-RPC error rather than HTTP 429.
  if (code === 429 || /rate limit|too many requests/i.test(message))
    return new EvmRpcError("http_429", method, message, undefined, codeText);
  // -32603 (internal error) and -32000 "header not found" on a lagging node are the node's fault.
  if (code === -32603 || /header not found|unknown block/i.test(message))
    return new EvmRpcError("http_5xx", method, message, undefined, codeText);
  return new EvmRpcError("rpc", method, message, undefined, codeText);
}

function retryAfter(response: Response): number | undefined {
  const raw = response.headers.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.min(seconds * 1000, 60_000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(at - Date.now(), 0), 60_000);
}
