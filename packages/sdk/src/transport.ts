/**
 * One API call over fetch: headers, timeout, the reply parsed or turned into a typed error, and the
 * retry loop. Which failures may be retried is the caller's choice (`retryOn`), because only the
 * caller knows whether sending the request twice is harmless.
 */
import { StablegateApiError, StablegateError, StablegateNetworkError } from "./errors.js";
import type { ApiErrorCode } from "./types.js";
import { nextDelayMs, parseRetryAfterMs, sleep, type RetryPolicy } from "./retry.js";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * What may be retried: "idempotent" (reads, and creation, made idempotent by external_id) retries
 * network errors, timeouts, 429 and 503; "refused-only" retries 429 and 503 only, the answers that
 * say the request was not acted on; "never" makes one attempt.
 */
export type RetryMode = "idempotent" | "refused-only" | "never";

export interface RetryEvent {
  /** The attempt that failed (1 for the first). */
  attempt: number;
  delayMs: number;
  error: StablegateError;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  fetch: FetchLike;
  timeoutMs: number;
  retry: RetryPolicy;
  userAgent: string;
  onRetry?: ((event: RetryEvent) => void) | undefined;
}

export interface ApiRequest {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  retryOn: RetryMode;
}

const RETRY_STATUSES = new Set([429, 503]);

export async function callApi<T>(options: TransportOptions, request: ApiRequest): Promise<T> {
  const url = buildUrl(options.baseUrl, request.path, request.query);
  const maxAttempts = request.retryOn === "never" ? 1 : options.retry.retries + 1;
  for (let attempt = 1; ; attempt++) {
    let error: StablegateError;
    let retryAfterMs: number | undefined;
    try {
      const response = await send(options, request, url);
      const requestId = response.headers.get("x-request-id");
      const text = await response.text();
      if (response.ok) return parseSuccess<T>(text, response.status, requestId, attempt);
      retryAfterMs = parseRetryAfterMs(response.headers.get("retry-after"));
      error = apiError(text, response.status, requestId, retryAfterMs, attempt);
    } catch (caught) {
      if (caught instanceof StablegateError) throw caught;
      error = networkError(caught, attempt, options.timeoutMs);
    }
    const retryable =
      request.retryOn === "idempotent"
        ? error.status === null || RETRY_STATUSES.has(error.status)
        : request.retryOn === "refused-only" && error.status !== null && RETRY_STATUSES.has(error.status);
    const delayMs =
      retryable && attempt < maxAttempts ? nextDelayMs(options.retry, attempt - 1, retryAfterMs) : undefined;
    if (delayMs === undefined) throw error;
    options.onRetry?.({ attempt, delayMs, error });
    await sleep(delayMs);
  }
}

function buildUrl(baseUrl: string, path: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const search = params.toString();
  return baseUrl.replace(/\/+$/, "") + path + (search ? `?${search}` : "");
}

function send(options: TransportOptions, request: ApiRequest, url: string): Promise<Response> {
  const headers: Record<string, string> = {
    accept: "application/json",
    "x-api-key": options.apiKey,
    "user-agent": options.userAgent,
  };
  const init: RequestInit = {
    method: request.method,
    headers,
    signal: AbortSignal.timeout(options.timeoutMs),
  };
  if (request.body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(request.body);
  }
  // Called unbound: a browser-style fetch refuses a `this` other than the global.
  const doFetch = options.fetch;
  return doFetch(url, init);
}

function parseSuccess<T>(text: string, status: number, requestId: string | null, attempts: number): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new StablegateApiError(`the API answered ${status} with a body that is not JSON`, {
      status,
      code: "INVALID_RESPONSE",
      requestId,
      attempts,
    });
  }
}

function apiError(
  text: string,
  status: number,
  requestId: string | null,
  retryAfterMs: number | undefined,
  attempts: number,
): StablegateApiError {
  const details = {
    status,
    requestId,
    attempts,
    retryAfterSeconds: retryAfterMs === undefined ? null : Math.ceil(retryAfterMs / 1000),
  };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isErrorBody(body))
    return new StablegateApiError(body.error, { ...details, code: body.code as ApiErrorCode });
  // A proxy's HTML page, an empty 502: no code of ours, so say what came.
  return new StablegateApiError(`the API answered ${status} without an error body`, {
    ...details,
    code: "INVALID_RESPONSE",
  });
}

function isErrorBody(body: unknown): body is { error: string; code: string } {
  if (typeof body !== "object" || body === null) return false;
  const { error, code } = body as Record<string, unknown>;
  return typeof error === "string" && typeof code === "string";
}

function networkError(caught: unknown, attempts: number, timeoutMs: number): StablegateNetworkError {
  const name = (caught as { name?: unknown } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return new StablegateNetworkError(`no answer within ${timeoutMs} ms`, {
      code: "TIMEOUT",
      attempts,
      cause: caught,
    });
  }
  // undici says "fetch failed" and puts the reason (ECONNREFUSED, ENOTFOUND, ...) in `cause`.
  const cause = (caught as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const reason =
    typeof cause?.code === "string"
      ? cause.code
      : typeof cause?.message === "string"
        ? cause.message
        : String(caught);
  return new StablegateNetworkError(`request failed: ${reason}`, {
    code: "NETWORK_ERROR",
    attempts,
    cause: caught,
  });
}
