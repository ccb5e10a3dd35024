/**
 * One HTTP attempt of a webhook: POST the stored bytes, signed, within a hard time budget. Nothing
 * here touches the database; the outcome is returned for recordWebhookAttempt to store.
 */
import { performance } from "node:perf_hooks";
import { isIP } from "node:net";
import { Agent, buildConnector, type Dispatcher } from "undici";
import {
  BLOCKED_ADDRESS_CODE,
  BlockedAddressError,
  guardedLookup,
  isBlockedAddress,
  type Resolver,
} from "./ssrf.js";
import { signWebhookBody } from "./signature.js";

/** SPEC 6.2: 10 seconds per attempt, connection, headers and body included. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Response bodies are read up to this many bytes and the rest discarded. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
export const WEBHOOK_USER_AGENT = "Stablegate-Webhooks/1.0";

export interface WebhookDispatcherOptions {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: skip the SSRF guard. */
  allowPrivateNetworks: boolean;
  timeoutMs?: number;
  /** DNS resolver used by the guard (tests map names to chosen addresses). */
  resolver?: Resolver;
  /** Sockets kept per origin; bounded by the sender's concurrency anyway. */
  connections?: number;
  /**
   * Builds the connector that opens sockets once the guard has passed (default undici's
   * buildConnector). Tests wrap it in a tripwire that refuses anything outside loopback, so even
   * a broken guard could not send a packet elsewhere.
   */
  buildConnector?: (options: buildConnector.BuildOptions) => buildConnector.connector;
}

/**
 * The undici Agent every attempt goes through. Its connector refuses blocked IP literals before
 * connecting and resolves hostnames through guardedLookup, so the address judged is the address
 * connected to (no DNS-rebinding window). Redirects are never followed: undici's request does not
 * follow them without an interceptor, and none is installed.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): Dispatcher {
  const timeout = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const guard = !options.allowPrivateNetworks;
  const base = (options.buildConnector ?? buildConnector)({
    timeout,
    ...(guard ? { lookup: guardedLookup(options.resolver) } : {}),
  });
  const connect: buildConnector.connector = (connectOptions, callback) => {
    // net.connect skips `lookup` for IP literals, so those are judged here.
    if (guard && isIP(connectOptions.hostname) !== 0 && isBlockedAddress(connectOptions.hostname)) {
      callback(new BlockedAddressError(connectOptions.hostname), null);
      return;
    }
    base(connectOptions, callback);
  };
  return new Agent({
    connect,
    // Backstops only: each attempt's own timer (sendWebhook) ends it at `timeout`. Were these equal
    // to it, a loaded process could fire either first and name the same timeout two ways.
    headersTimeout: timeout + 1_000,
    bodyTimeout: timeout + 1_000,
    keepAliveTimeout: 4_000,
    connections: options.connections ?? null,
  });
}

export interface WebhookRequest {
  url: string;
  /** The stored payload, sent byte for byte. */
  body: string;
  secret: string;
  idempotencyKey: string;
  /** Time of this attempt (ctx.clock); X-Timestamp is its Unix seconds. */
  at: Date;
}

export interface AttemptResult {
  url: string;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  /** Why the attempt failed without an HTTP status (timeout, reset, blocked address, ...). */
  error: string | null;
  success: boolean;
}

export interface SendOptions {
  dispatcher: Dispatcher;
  /** Lower only in tests; production always uses WEBHOOK_TIMEOUT_MS. */
  timeoutMs?: number;
}

export function webhookHeaders(request: WebhookRequest, body: Buffer): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": WEBHOOK_USER_AGENT,
    "x-signature": signWebhookBody(request.secret, body),
    "x-idempotency-key": request.idempotencyKey,
    "x-timestamp": String(Math.floor(request.at.getTime() / 1000)),
  };
}

/**
 * POSTs through the dispatcher's low-level handler interface: the status and the response bytes
 * arrive as callbacks, with no response stream, async iterator or AbortSignal per attempt. The
 * sender's hot path: this costs about half the CPU of undici's request() and a streamed body.
 */
export function sendWebhook(request: WebhookRequest, options: SendOptions): Promise<AttemptResult> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const started = performance.now();
  const finish = (statusCode: number | null, error: string | null): AttemptResult => ({
    url: request.url,
    startedAt: request.at,
    durationMs: Math.round(performance.now() - started),
    statusCode,
    error,
    success: statusCode !== null && statusCode >= 200 && statusCode < 300 && error === null,
  });
  const target = parseTarget(request.url);
  if (target === null) return Promise.resolve(finish(null, "invalid callback url"));
  const body = Buffer.from(request.body, "utf8");
  return new Promise<AttemptResult>((resolve) => {
    let abort: ((reason: Error) => void) | undefined;
    let statusCode: number | null = null;
    let received = 0;
    let timedOut = false;
    /** The receiver sent more than MAX_RESPONSE_BYTES: the rest is discarded with the connection. */
    let truncated = false;
    let settled = false;
    const settle = (code: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(finish(code, error));
    };
    const timer = setTimeout(() => {
      timedOut = true;
      abort?.(new AttemptTimeout(timeoutMs));
      // Not connected yet (onConnect not reached): the budget ends here all the same.
      settle(statusCode, `timeout after ${timeoutMs} ms`);
    }, timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest) {
        abort = abortRequest;
        if (timedOut) abortRequest(new AttemptTimeout(timeoutMs));
      },
      onHeaders(code) {
        statusCode = code;
        return true;
      },
      onData(chunk) {
        received += chunk.length;
        if (received >= MAX_RESPONSE_BYTES && !truncated) {
          truncated = true;
          abort?.(new ResponseTruncated());
        }
        return true;
      },
      onComplete() {
        settle(statusCode, null);
      },
      onError(error) {
        if (truncated) settle(statusCode, null);
        // A body cut short after a 2xx status is still a failure: the receiver may not have finished.
        else settle(statusCode, describeFailure(error, timedOut, timeoutMs));
      },
    };
    try {
      options.dispatcher.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: "POST",
          headers: webhookHeaders(request, body),
          body,
        },
        handler,
      );
    } catch (error) {
      settle(null, describeFailure(error, timedOut, timeoutMs));
    }
  });
}

interface Target {
  origin: string;
  path: string;
}

/** Parsed callback URLs: a busy sender posts to the same few URLs over and over. */
const targets = new Map<string, Target | null>();
const MAX_CACHED_TARGETS = 1_000;

/** The origin and path of an http(s) URL, or null (not a URL, or another scheme). */
function parseTarget(url: string): Target | null {
  const cached = targets.get(url);
  if (cached !== undefined) return cached;
  let target: Target | null = null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "http:" || parsed.protocol === "https:") {
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    }
  } catch {
    target = null;
  }
  if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
  targets.set(url, target);
  return target;
}

class ResponseTruncated extends Error {
  constructor() {
    super(`response body over ${MAX_RESPONSE_BYTES} bytes discarded`);
    this.name = "ResponseTruncated";
  }
}

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`timeout after ${ms} ms`);
    this.name = "AttemptTimeout";
  }
}

/** A short, stable reason for the attempt log and the webhook_failed event (never internals). */
export function describeError(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  return describeFailure(error, signal.aborted && signal.reason instanceof AttemptTimeout, timeoutMs);
}

function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut || error instanceof AttemptTimeout) return `timeout after ${timeoutMs} ms`;
  const chain: unknown[] = [];
  for (let current = error; current && chain.length < 5; current = (current as { cause?: unknown }).cause) {
    chain.push(current);
  }
  const codes = chain.map((entry) => (entry as { code?: unknown }).code).filter((c) => typeof c === "string");
  if (codes.includes(BLOCKED_ADDRESS_CODE)) return "blocked address";
  if (codes.some((c) => c === "ENOTFOUND" || c === "EAI_AGAIN" || c === "EAI_NODATA")) {
    return "dns lookup failed";
  }
  if (codes.includes("ECONNREFUSED")) return "connection refused";
  if (
    codes.some(
      (c) =>
        c === "UND_ERR_CONNECT_TIMEOUT" || c === "UND_ERR_HEADERS_TIMEOUT" || c === "UND_ERR_BODY_TIMEOUT",
    )
  ) {
    return `timeout after ${timeoutMs} ms`;
  }
  if (codes.some((c) => c === "ECONNRESET" || c === "UND_ERR_SOCKET" || c === "EPIPE")) {
    return "connection reset";
  }
  if (codes.some((c) => c === "EHOSTUNREACH" || c === "ENETUNREACH")) return "host unreachable";
  if (codes.some((c) => (typeof c === "string" && c.startsWith("ERR_TLS")) || c === "CERT_HAS_EXPIRED")) {
    return "tls error";
  }
  const first = codes[0];
  return typeof first === "string" ? `network error (${first})` : "network error";
}
