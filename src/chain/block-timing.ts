/**
 * When to ask the node for the head again. Polling faster than blocks arrive only burns node calls
 * (TronGrid counts them), so the scanner predicts the next block from the last head's timestamp and
 * the observed block interval, and polls when it should be there. How long after its timestamp a
 * block can be fetched (propagation, clock skew) is learnt: a poll that finds the block at once
 * moves the next poll a little earlier, a poll that misses moves it later by much more, so the offset
 * settles where about 1 poll in 100 misses (the ratio of the two steps): a miss costs a node call
 * and ~300 ms of detection, and the price of rarer misses is a poll on average some tens of
 * milliseconds later than the earliest moment the block could be fetched. A block that does not come
 * (a missed slot) moves the expectation one interval on.
 */

const SAMPLES = 16;
const DEFAULT_INTERVAL_MS = 3000;
const EARLIER_AFTER_HIT_MS = 1;
const LATER_AFTER_MISS_MS = 100;

export interface BlockTimingOptions {
  /** Upper bound of any wait (and the fallback when nothing is known). */
  maxIdleMs: number;
  /** Lower bound of any wait. */
  minIdleMs: number;
}

export class BlockTiming {
  private readonly intervals: number[] = [];
  private last: { number: number; timestamp: number } | undefined;
  /** Milliseconds after a block's timestamp at which it is expected to be fetchable. */
  private offset = 0;
  private misses = 0;

  constructor(private readonly options: BlockTimingOptions) {}

  /** Milliseconds between blocks as observed (median of recent heads), or the mainnet default. */
  get intervalMs(): number {
    if (this.intervals.length === 0) return DEFAULT_INTERVAL_MS;
    const sorted = [...this.intervals].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] as number;
  }

  get offsetMs(): number {
    return this.offset;
  }

  /** Records a polled head; returns true when it is a new one. */
  observe(head: { number: number; timestamp: number }): boolean {
    const last = this.last;
    if (last && head.number <= last.number) return false;
    if (last) {
      if (head.timestamp > last.timestamp) {
        push(this.intervals, (head.timestamp - last.timestamp) / (head.number - last.number));
      }
      const interval = this.intervalMs;
      this.offset =
        this.misses === 0
          ? Math.max(-interval / 2, this.offset - EARLIER_AFTER_HIT_MS)
          : Math.min(interval, this.offset + LATER_AFTER_MISS_MS);
    }
    this.misses = 0;
    this.last = { number: head.number, timestamp: head.timestamp };
    return true;
  }

  /** A poll, made while caught up, found no new block. */
  miss(): void {
    this.misses += 1;
  }

  /** Milliseconds to wait before the next poll, at local time `now`. */
  nextPollDelay(now: number): number {
    const { maxIdleMs, minIdleMs } = this.options;
    if (!this.last) return clamp(maxIdleMs, minIdleMs, maxIdleMs);
    const interval = this.intervalMs;
    let due = this.last.timestamp + interval + this.offset;
    // A block more than half an interval late is a missed slot: expect the one after it.
    while (now > due + interval / 2 && due < now + interval) due += interval;
    if (now < due) return clamp(due - now, minIdleMs, maxIdleMs);
    // Due but not seen yet: ask again soon, not in a tight loop.
    return clamp(clamp(interval / 10, 50, 300), minIdleMs, maxIdleMs);
  }
}

function push(list: number[], value: number): void {
  list.push(value);
  if (list.length > SAMPLES) list.shift();
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, value));
}
