/**
 * A background task is an idempotent function over the database, run again and again. The loop
 * only schedules it: it backs off with jitter after failures and stops promptly on shutdown.
 * While the database is unreachable the backoff is capped low (UNAVAILABLE_BACKOFF_MS), so work
 * resumes within seconds of its return, and the failure is logged once per outage and then every
 * tenth attempt rather than on every try; the first success after failures logs "resumed".
 */
import { isDatabaseUnavailable } from "../db/database-error.js";
import type { Logger } from "../logger.js";

/** Longest pause of a loop whose task failed because the database is unreachable. */
export const UNAVAILABLE_BACKOFF_MS = 4_000;

export interface Loop {
  readonly name: string;
  /** Runs the task now instead of waiting for the next tick (e.g. after a NOTIFY). */
  wake(): void;
  stop(): Promise<void>;
}

export interface LoopOptions {
  name: string;
  log: Logger;
  /** Pause between runs when the task reports no more work. */
  intervalMs: number;
  /** Cap of the failure backoff. */
  maxBackoffMs?: number;
  /** Returns true when there is more work to do right away. */
  task: (signal: AbortSignal) => Promise<boolean | void>;
}

export function startLoop(options: LoopOptions): Loop {
  const controller = new AbortController();
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  let wakeUp: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wakeUp = resolve;
      timer = setTimeout(resolve, ms);
    }).finally(() => {
      clearTimeout(timer);
      wakeUp = undefined;
    });

  const run = async () => {
    while (!controller.signal.aborted) {
      let more = false;
      let unavailable = false;
      try {
        more = (await options.task(controller.signal)) === true;
        if (failures > 0) options.log.info({ task: options.name, failures }, "background task resumed");
        failures = 0;
      } catch (error) {
        failures += 1;
        unavailable = isDatabaseUnavailable(error);
        if (!unavailable) {
          options.log.warn({ err: error, task: options.name, failures }, "background task failed");
        } else if (failures === 1 || failures % 10 === 0) {
          options.log.warn(
            { err: error, task: options.name, failures },
            "background task failed: database unavailable",
          );
        }
      }
      if (controller.signal.aborted) break;
      if (failures > 0) {
        const configured = options.maxBackoffMs ?? 30_000;
        const cap = unavailable ? Math.min(configured, UNAVAILABLE_BACKOFF_MS) : configured;
        const base = Math.min(cap, options.intervalMs * 2 ** Math.min(failures, 10));
        await sleep(base / 2 + Math.random() * (base / 2));
      } else if (!more) {
        await sleep(options.intervalMs);
      }
    }
  };
  const done = run();

  return {
    name: options.name,
    wake: () => wakeUp?.(),
    async stop() {
      controller.abort();
      wakeUp?.();
      await done;
    },
  };
}
