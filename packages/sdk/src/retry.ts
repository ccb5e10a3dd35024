/**
 * When and how long the client waits before trying a request again: exponential backoff with
 * jitter, never sooner than the API's Retry-After, never longer than maxDelayMs.
 */

export interface RetryOptions {
  /** Further attempts after the first (default 3, so at most 4 requests). 0 turns retrying off. */
  retries?: number;
  /** The first backoff step in ms (default 500); step n is base * 2^n. */
  baseDelayMs?: number;
  /**
   * The longest single wait in ms (default 20,000). A Retry-After longer than this is not waited
   * for: the call fails at once with the error, whose retryAfterSeconds says when to come back.
   */
  maxDelayMs?: number;
}

export interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 500, maxDelayMs: 20_000 };

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const pick = (value: number | undefined, fallback: number, name: string): number => {
    if (value === undefined) return fallback;
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number >= 0`);
    return value;
  };
  return {
    retries: Math.floor(pick(options.retries, DEFAULT_RETRY.retries, "retries")),
    baseDelayMs: pick(options.baseDelayMs, DEFAULT_RETRY.baseDelayMs, "baseDelayMs"),
    maxDelayMs: pick(options.maxDelayMs, DEFAULT_RETRY.maxDelayMs, "maxDelayMs"),
  };
}

/**
 * The wait before retry number `retry` (0 for the first retry): "equal jitter", half the step fixed
 * and half random, so waits still grow while clients that failed together spread out.
 */
export function backoffDelayMs(
  policy: RetryPolicy,
  retry: number,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * Retry-After in ms: delta-seconds ("120") or an HTTP-date ("Wed, 21 Oct 2026 07:28:00 GMT"),
 * relative to `now`. undefined when absent or unreadable.
 */
export function parseRetryAfterMs(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names a day of the week; Date.parse alone would also take "12" or "2026".
  if (!/^[A-Za-z]{3},? /.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** How long to wait before the next attempt, or undefined when the wait would exceed the bound. */
export function nextDelayMs(
  policy: RetryPolicy,
  retry: number,
  retryAfterMs: number | undefined,
): number | undefined {
  const backoff = backoffDelayMs(policy, retry);
  if (retryAfterMs === undefined) return backoff;
  if (retryAfterMs > policy.maxDelayMs) return undefined;
  return Math.min(policy.maxDelayMs, Math.max(retryAfterMs, backoff));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
