/**
 * One HTTP attempt of a webhook: POST the stored bytes, signed, within a hard time budget. Nothing
 * here touches the database; the outcome is returned for recordWebhookAttempt to store.
 */
import { performance } from "node:perf_hooks";
import { isIP } from "node:net";
import { Agent, buildConnector, type Dispatcher, request } from "undici";
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

export async function sendWebhook(request: WebhookRequest, options: SendOptions): Promise<AttemptResult> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const body = Buffer.from(request.body, "utf8");
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeout(timeoutMs)), timeoutMs);
  const finish = (statusCode: number | null, error: string | null): AttemptResult => ({
    url: request.url,
    startedAt: request.at,
    durationMs: Math.round(performance.now() - started),
    statusCode,
    error,
    success: statusCode !== null && statusCode >= 200 && statusCode < 300 && error === null,
  });
  try {
    const protocol = safeProtocol(request.url);
    if (protocol !== "http:" && protocol !== "https:") return finish(null, "invalid callback url");
    const response = await request_(request.url, body, webhookHeaders(request, body), options, controller);
    try {
      await drain(response.body);
    } catch (error) {
      // A body cut short after a 2xx status is still a failure: the receiver may not have finished.
      return finish(response.statusCode, describeError(error, controller.signal, timeoutMs));
    }
    return finish(response.statusCode, null);
  } catch (error) {
    return finish(null, describeError(error, controller.signal, timeoutMs));
  } finally {
    clearTimeout(timer);
  }
}

function request_(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  options: SendOptions,
  controller: AbortController,
): Promise<Dispatcher.ResponseData> {
  return request(url, {
    method: "POST",
    dispatcher: options.dispatcher,
    headers,
    body,
    signal: controller.signal,
  });
}

/** Reads at most MAX_RESPONSE_BYTES and drops the connection if the receiver sends more. */
async function drain(body: Dispatcher.ResponseData["body"]): Promise<void> {
  let received = 0;
  for await (const chunk of body) {
    received += (chunk as Buffer).length;
    if (received >= MAX_RESPONSE_BYTES) {
      body.destroy();
      return;
    }
  }
}

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`timeout after ${ms} ms`);
    this.name = "AttemptTimeout";
  }
}

function safeProtocol(url: string): string | null {
  try {
    return new URL(url).protocol;
  } catch {
    return null;
  }
}

/** A short, stable reason for the attempt log and the webhook_failed event (never internals). */
export function describeError(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted && signal.reason instanceof AttemptTimeout) return signal.reason.message;
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
