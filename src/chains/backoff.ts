/**
 * Waiting helpers of the chain side: abortable sleep, node calls retried with jittered exponential
 * backoff, and a FIFO limit on calls in flight. A block is never skipped, so a retryable node
 * error is retried until it succeeds or the scanner stops.
 */
import type { Logger } from "../logger.js";
import { isNodeCallError } from "./node-call-error.js";

export class AbortedError extends Error {
  constructor() {
    super("aborted");
    this.name = "AbortedError";
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Full-jitter-ish: a random delay in [base/2, base) with base doubling per failure up to `capMs`. */
export function backoffMs(failures: number, baseMs = 200, capMs = 10_000): number {
  const base = Math.min(capMs, baseMs * 2 ** Math.min(Math.max(failures - 1, 0), 16));
  return base / 2 + Math.random() * (base / 2);
}

export interface RetryTiming {
  baseMs?: number;
  capMs?: number;
}

export interface RetryOptions extends RetryTiming {
  signal: AbortSignal;
  log: Logger;
  /** What is being fetched, for the log line. */
  what: string;
}

/**
 * Runs a node call until it succeeds. Retryable node errors of any family (node-call-error.ts:
 * 429, 5xx, timeouts, connection errors, malformed bodies) wait with jitter (at least the node's
 * Retry-After); anything else is thrown to the caller. Throws AbortedError once the signal aborts.
 */
export async function retryNode<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  let failures = 0;
  for (;;) {
    if (options.signal.aborted) throw new AbortedError();
    try {
      return await fn();
    } catch (error) {
      if (options.signal.aborted) throw new AbortedError();
      if (!isNodeCallError(error) || !error.retryable) throw error;
      failures += 1;
      const wait = Math.max(backoffMs(failures, options.baseMs, options.capMs), error.retryAfterMs ?? 0);
      const entry = { what: options.what, kind: error.kind, failures, waitMs: Math.round(wait) };
      if (failures === 1 || failures % 10 === 0) options.log.warn(entry, "node call failed, retrying");
      else options.log.debug(entry, "node call failed, retrying");
      await sleep(wait, options.signal);
    }
  }
}

/** At most `limit` tasks run at once; waiting tasks start in the order they were queued. */
export class Limiter {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.active += 1;
    }
    try {
      if (signal?.aborted) throw new AbortedError();
      return await task();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
