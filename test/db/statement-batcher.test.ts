import { describe, expect, it } from "vitest";
import { StatementBatcher } from "../../src/db/statement-batcher.js";

/** A run whose batches the test releases by hand, recording each batch and the concurrency seen. */
function manualRun() {
  const batches: number[][] = [];
  const waiting: Array<() => void> = [];
  let running = 0;
  let maxRunning = 0;
  return {
    batches,
    get maxRunning() {
      return maxRunning;
    },
    releaseAll() {
      for (const release of waiting.splice(0)) release();
    },
    run: async (items: readonly number[]) => {
      batches.push([...items]);
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise<void>((resolve) => waiting.push(resolve));
      running--;
      return items.map((item) => item * 10);
    },
  };
}

/** Lets the batcher dispatch: a few turns of the event loop. */
const turn = async () => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("StatementBatcher", () => {
  it("sends a lone item at once, and what queues while the database is busy as one batch", async () => {
    const m = manualRun();
    const batcher = new StatementBatcher<number, number>({ maxInFlight: 1, maxBatchSize: 64, run: m.run });
    const first = batcher.submit(1);
    await turn();
    expect(m.batches).toEqual([[1]]);
    const later = [2, 3, 4, 5, 6].map((item) => batcher.submit(item));
    await turn();
    expect(m.batches).toHaveLength(1);
    m.releaseAll();
    expect(await first).toBe(10);
    await turn();
    expect(m.batches).toEqual([[1], [2, 3, 4, 5, 6]]);
    m.releaseAll();
    expect(await Promise.all(later)).toEqual([20, 30, 40, 50, 60]);
  });

  it("never runs more than maxInFlight batches, nor more than maxBatchSize items in one", async () => {
    const m = manualRun();
    const batcher = new StatementBatcher<number, number>({ maxInFlight: 2, maxBatchSize: 3, run: m.run });
    const all = Array.from({ length: 10 }, (_, i) => batcher.submit(i));
    for (let i = 0; i < 10; i++) {
      await turn();
      m.releaseAll();
    }
    expect(await Promise.all(all)).toEqual(Array.from({ length: 10 }, (_, i) => i * 10));
    expect(m.maxRunning).toBe(2);
    expect(Math.max(...m.batches.map((batch) => batch.length))).toBe(3);
    expect(m.batches.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it("with partialInFlight, starts a batch beside the running ones only once a full batch waits", async () => {
    const m = manualRun();
    const batcher = new StatementBatcher<number, number>({
      maxInFlight: 3,
      partialInFlight: 1,
      maxBatchSize: 4,
      run: m.run,
    });
    const all = [batcher.submit(0)];
    await turn();
    expect(m.batches).toEqual([[0]]);
    // Three wait while one runs: less than a full batch, so they wait for it.
    all.push(...[1, 2, 3].map((item) => batcher.submit(item)));
    await turn();
    expect(m.batches).toEqual([[0]]);
    // A fourth makes a full batch: it starts beside the running one; a fifth waits again.
    all.push(batcher.submit(4), batcher.submit(5));
    await turn();
    expect(m.batches).toEqual([[0], [1, 2, 3, 4]]);
    expect(m.maxRunning).toBe(2);
    m.releaseAll();
    await turn();
    expect(m.batches).toEqual([[0], [1, 2, 3, 4], [5]]);
    m.releaseAll();
    expect(await Promise.all(all)).toEqual([0, 10, 20, 30, 40, 50]);
  });

  it("retries a failed batch item by item, so only the item that fails alone gets the error", async () => {
    const seen: number[][] = [];
    const batcher = new StatementBatcher<number, string>({
      maxInFlight: 1,
      maxBatchSize: 64,
      run: async (items) => {
        seen.push([...items]);
        if (items.includes(3)) throw new Error("item 3 breaks a constraint");
        return items.map((item) => `ok ${item}`);
      },
    });
    const results = await Promise.allSettled([1, 2, 3, 4].map((item) => batcher.submit(item)));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      "ok 1",
      "ok 2",
      "item 3 breaks a constraint",
      "ok 4",
    ]);
    expect(seen).toEqual([[1, 2, 3, 4], [1], [2], [3], [4]]);
  });

  it("refuses a run that answers the wrong number of results, and rejects bad options", async () => {
    const batcher = new StatementBatcher<number, number>({
      maxInFlight: 1,
      maxBatchSize: 8,
      run: async () => [],
    });
    await expect(batcher.submit(1)).rejects.toThrow(/0 results for 1 items/);
    expect(() => new StatementBatcher({ maxInFlight: 0, maxBatchSize: 1, run: async () => [] })).toThrow(
      RangeError,
    );
    expect(
      () =>
        new StatementBatcher({ maxInFlight: 2, partialInFlight: 0, maxBatchSize: 1, run: async () => [] }),
    ).toThrow(RangeError);
  });
});
