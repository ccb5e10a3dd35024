/**
 * Natural batching for one hot statement: callers submit one item each; while fewer than
 * `maxInFlight` batches are running, whatever has queued is sent at once as one batch, so a lone
 * request waits for nobody, and under load the items that arrive while the database is busy share
 * the next round trip and commit. One statement per batch spends the per-statement cost (a round
 * trip, executor start-up, a WAL flush at commit) once for many rows: what lets order creation keep
 * its latency flat at high concurrency.
 *
 * A batch that fails is retried item by item, so one item's error (a constraint it alone breaks)
 * reaches only its own caller, and every caller gets exactly the outcome it would have had alone.
 */
export interface StatementBatcherOptions<I, O> {
  /** Batches running at once; each holds one pooled connection. */
  maxInFlight: number;
  /**
   * Batches that may run at once while fewer than maxBatchSize items wait (maxInFlight by
   * default). Below maxInFlight, items that arrive while that many batches run wait for one of
   * them to end and go together in the next, so the statements are fewer and fuller; a further
   * batch starts beside them only once a full one waits.
   */
  partialInFlight?: number;
  /** Items per batch at most. */
  maxBatchSize: number;
  /** Runs one batch; answers one result per item, in the items' order. */
  run(items: readonly I[]): Promise<O[]>;
}

interface Pending<I, O> {
  item: I;
  resolve(value: O): void;
  reject(reason: unknown): void;
}

export class StatementBatcher<I, O> {
  private readonly queue: Pending<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly partialInFlight: number;

  constructor(private readonly options: StatementBatcherOptions<I, O>) {
    if (!(options.maxInFlight >= 1) || !(options.maxBatchSize >= 1)) {
      throw new RangeError("maxInFlight and maxBatchSize must be at least 1");
    }
    this.partialInFlight = options.partialInFlight ?? options.maxInFlight;
    if (!(this.partialInFlight >= 1)) throw new RangeError("partialInFlight must be at least 1");
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Dispatches on the next turn of the event loop, so requests parsed in the same turn share a batch. */
  private schedule(): void {
    if (this.scheduled || !this.canStart()) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.canStart()) void this.runBatch(this.queue.splice(0, this.options.maxBatchSize));
    });
  }

  /** Whether another batch may start now (see partialInFlight). */
  private canStart(): boolean {
    if (this.queue.length === 0 || this.inFlight >= this.options.maxInFlight) return false;
    return this.inFlight < this.partialInFlight || this.queue.length >= this.options.maxBatchSize;
  }

  private async runBatch(batch: Pending<I, O>[]): Promise<void> {
    this.inFlight++;
    try {
      await this.settle(batch);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }

  private async settle(batch: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.runChecked(batch.map((pending) => pending.item));
      batch.forEach((pending, i) => pending.resolve(results[i] as O));
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
    }
    for (const pending of batch) {
      try {
        const [result] = await this.runChecked([pending.item]);
        pending.resolve(result as O);
      } catch (error) {
        pending.reject(error);
      }
    }
  }

  private async runChecked(items: I[]): Promise<O[]> {
    const results = await this.options.run(items);
    if (results.length !== items.length) {
      throw new Error(`batch answered ${results.length} results for ${items.length} items`);
    }
    return results;
  }
}
