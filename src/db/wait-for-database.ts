/**
 * Start-up against a database that is not there yet (compose and Kubernetes start every container
 * at once; PostgreSQL may be restarting): retry the first statement with a capped, jittered backoff
 * and log each wait, instead of exiting. Only unavailability is retried; any other error (a wrong
 * password, a failed migration) ends the start-up as before.
 */
import type { Logger } from "../logger.js";
import { describeDatabaseError, isDatabaseUnavailable } from "./database-error.js";

export interface WaitOptions {
  log: Logger;
  /** First pause; doubled per failure up to maxDelayMs. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Give up after this long (default: never). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Runs `attempt` until it succeeds or fails with something other than unavailability. */
export async function retryWhileUnavailable<T>(
  what: string,
  attempt: () => Promise<T>,
  options: WaitOptions,
): Promise<T> {
  const initial = options.initialDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 10_000;
  // Real elapsed time: the waits between attempts are real timers, and no context exists yet.
  const started = performance.now();
  for (let failures = 1; ; failures++) {
    try {
      const value = await attempt();
      if (failures > 1) {
        options.log.info(
          { what, attempts: failures, waitedMs: Math.round(performance.now() - started) },
          "database reachable",
        );
      }
      return value;
    } catch (error) {
      if (!isDatabaseUnavailable(error) || options.signal?.aborted) throw error;
      const waited = Math.round(performance.now() - started);
      if (options.timeoutMs !== undefined && waited >= options.timeoutMs) throw error;
      const base = Math.min(cap, initial * 2 ** Math.min(failures - 1, 10));
      const delay = Math.round(base / 2 + Math.random() * (base / 2));
      options.log.warn(
        {
          what,
          attempt: failures,
          waitedMs: waited,
          retryInMs: delay,
          // The driver's message may name the host and the user: the code only.
          err: describeDatabaseError(error) ?? { code: (error as { code?: unknown }).code ?? "unknown" },
        },
        "database unavailable at start-up, waiting",
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        options.signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }
}
