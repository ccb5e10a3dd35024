/**
 * A background task is an idempotent function over the database, run again and again. The loop
 * only schedules it: it backs off with jitter after failures and stops promptly on shutdown.
 */
import type { Logger } from "../logger.js";

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
      try {
        more = (await options.task(controller.signal)) === true;
        failures = 0;
      } catch (error) {
        failures += 1;
        options.log.warn({ err: error, task: options.name, failures }, "background task failed");
      }
      if (controller.signal.aborted) break;
      if (failures > 0) {
        const cap = options.maxBackoffMs ?? 30_000;
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
