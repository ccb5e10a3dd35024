import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TronWeb } from "tronweb";
import { transfers } from "../../src/db/schema.js";
import { chainTransfers, startChainTest, type ChainTest } from "./helpers.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { poll } from "../helpers/poll.js";

let t: ChainTest;
let watched: Set<string>;
let recipients: string[];
let scannedFrom: number;

beforeAll(async () => {
  t = await startChainTest();
  await t.scanner.sync();
  scannedFrom = (await t.cursor()) as number;
  const orders = await Promise.all(Array.from({ length: 12 }, () => t.order("25")));
  watched = new Set(orders.map((o) => o.address));
  // Half of the traffic goes to order addresses, half to strangers.
  const strangers = await Promise.all(
    Array.from({ length: 12 }, async () => (await TronWeb.createAccount()).address.base58),
  );
  recipients = [...watched, ...strangers];
});
afterAll(() => t.close());

async function load(blocks: number): Promise<{ from: number; to: number }> {
  return t.devnetPost<{ from: number; to: number }>("/devnet/load", {
    blocks,
    tx_per_block: 30,
    usdt_per_block: 8,
    to_addresses: recipients,
  });
}

async function recorded(): Promise<string[]> {
  const rows = await t.ctx.db.select({ tx: transfers.txHash, i: transfers.logIndex }).from(transfers);
  return rows.map((r) => `${r.tx}:${r.i}`).sort();
}

describe("a scanner restarted mid-run", () => {
  it("misses and duplicates nothing when stopped between passes and restarted", async () => {
    const { to } = await load(40);
    const first = t.newScanner({ maxBlocksPerPass: 7, batchSize: 3 });
    await first.scanOnce();
    await first.scanOnce();
    expect(await t.cursor()).toBeLessThan(to);

    const second = t.newScanner();
    await second.sync();
    expect(await t.cursor()).toBe(to);
    const expected = await chainTransfers(t, watched, scannedFrom + 1, to);
    expect(expected.length).toBeGreaterThan(50);
    expect(await recorded()).toEqual(expected);
  });

  it("misses and duplicates nothing when stopped mid-catch-up with node calls in flight", async () => {
    const before = (await t.cursor()) as number;
    const { to } = await load(80);
    for (let round = 0; round < 3; round++) {
      const scanner = t.newScanner({ batchSize: 2, concurrency: 6 });
      const controller = new AbortController();
      const running = scanner.run(controller.signal);
      const start = (await t.cursor()) as number;
      await poll("the scanner to move nine blocks", () => t.cursor(), {
        timeoutMs: 20_000,
        intervalMs: 5,
        until: (cursor) => (cursor as number) >= Math.min(to, start + 9),
      });
      controller.abort();
      await running;
    }
    expect(await t.cursor()).toBeGreaterThan(before);
    await t.newScanner().sync();
    expect(await t.cursor()).toBe(to);
    expect(await recorded()).toEqual(await chainTransfers(t, watched, scannedFrom + 1, to));
  });

  it("applies nothing twice when two scanners race on the same cursor", async () => {
    const { to } = await load(30);
    const a = t.newScanner({ batchSize: 4 });
    const b = t.newScanner({ batchSize: 5 });
    // Without the leader lock both run: the cursor check lets one batch win at a time.
    const results = await Promise.allSettled([a.sync(), b.sync()]);
    for (const r of results) {
      if (r.status === "rejected")
        expect(String(r.reason)).toMatch(/cursor moved|changed concurrently|duplicate key/);
    }
    await t.newScanner().sync();
    expect(await t.cursor()).toBe(to);
    expect(await recorded()).toEqual(await chainTransfers(t, watched, scannedFrom + 1, to));
    // Orders moved by racing scanners: the admin rollups still equal a recount.
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});
