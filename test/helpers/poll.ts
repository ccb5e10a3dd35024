/**
 * The one way a test waits: call `fn` until its value counts as done, with a deadline. A timed-out
 * wait throws naming what it waited for, the last value `fn` returned, the last error it threw and,
 * when given, the state `describe` reports (process output, rows), so a failure says what it saw.
 */
import { inspect } from "node:util";

export interface PollOptions<T> {
  /** How long to wait before failing; 30 s unless said. */
  timeoutMs?: number;
  /** The pause between looks; 100 ms unless said (0 looks again at once). */
  intervalMs?: number;
  /** When a value counts as done; unless said, any value but `undefined` and `false`. */
  until?: (value: T) => boolean;
  /** Runs between looks, e.g. to mine a block or step a test clock. */
  between?: () => unknown;
  /** More state to print on a timeout (a string as it is, anything else inspected). */
  describe?: () => unknown;
}

type Done<T> = Exclude<T, undefined | false>;

const show = (value: unknown) => inspect(value, { depth: 6, breakLength: Infinity, maxStringLength: 4_000 });

export async function poll<T>(
  what: string,
  fn: () => T | Promise<T>,
  options: PollOptions<T> & { until: (value: T) => boolean },
): Promise<T>;
export async function poll<T>(
  what: string,
  fn: () => T | Promise<T>,
  options?: Omit<PollOptions<T>, "until">,
): Promise<Done<T>>;
export async function poll<T>(
  what: string,
  fn: () => T | Promise<T>,
  options: PollOptions<T> = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 100, between, describe } = options;
  const until = options.until ?? ((value: T) => value !== undefined && value !== false);
  const deadline = Date.now() + timeoutMs;
  let seen = false;
  let last: T | undefined;
  let lastError: unknown;
  let looks = 0;
  for (;;) {
    looks++;
    try {
      const value = await fn();
      seen = true;
      last = value;
      lastError = undefined;
      if (until(value)) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const parts = [`timed out after ${timeoutMs} ms (${looks} looks) waiting for ${what}`];
      parts.push(seen ? `last value: ${show(last)}` : "no value: every look threw");
      if (lastError !== undefined)
        parts.push(`last error: ${lastError instanceof Error ? lastError.message : show(lastError)}`);
      if (describe) {
        try {
          const state = await describe();
          parts.push(`state: ${typeof state === "string" ? state : show(state)}`);
        } catch (error) {
          parts.push(`state unreadable: ${String(error)}`);
        }
      }
      throw new Error(parts.join("\n"));
    }
    if (between) await between();
    if (intervalMs > 0) await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
