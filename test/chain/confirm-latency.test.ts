import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "./helpers.js";
import { poll } from "../helpers/poll.js";

let t: ChainTest;

beforeAll(async () => {
  t = await startChainTest();
  await t.scanner.sync();
});
afterAll(() => t.close());

const BLOCK_MS = 500;

describe("confirmation after solidification", () => {
  it("records each outcome one poll after its block is solidified, with at most one solidified-head read per block", async () => {
    const orders = await Promise.all([t.order("1"), t.order("2"), t.order("3")]);
    const controller = new AbortController();
    const loop = t.newScanner().run(controller.signal);
    const minedAt = new Map<number, number>();
    const outcomeSeenAt = new Map<string, number>();
    const paidIn = new Map<string, number>();
    let firstBlock = 0;
    let lastBlock = 0;
    try {
      // Payments in three consecutive blocks: the old spacing of proofs (15 block intervals) made
      // the second and third wait.
      for (const [i, o] of orders.entries()) {
        await t.pay(o.address, BigInt(i + 1) * 1_000_000n);
        const n = t.mine(1);
        minedAt.set(n, Date.now());
        paidIn.set(o.id, n);
        if (i === 0) firstBlock = n;
        await new Promise((r) => setTimeout(r, BLOCK_MS));
      }
      await t.devnetPost("/devnet/requests/reset");
      // Blocks keep coming every BLOCK_MS while the test looks for the confirmations.
      let nextBlockAt = Date.now();
      await poll(
        "every order confirmed",
        async () => {
          if (Date.now() >= nextBlockAt) {
            lastBlock = t.mine(1);
            minedAt.set(lastBlock, Date.now());
            nextBlockAt += BLOCK_MS;
          }
          for (const o of orders) {
            if (outcomeSeenAt.has(o.id)) continue;
            if ((await t.orderRow(o.id)).status === "confirmed") outcomeSeenAt.set(o.id, Date.now());
          }
          return outcomeSeenAt.size;
        },
        {
          intervalMs: 10,
          until: (confirmed) => confirmed === orders.length,
          describe: () => ({ lastBlock }),
        },
      );
    } finally {
      controller.abort();
      await loop;
    }
    expect(outcomeSeenAt.size).toBe(orders.length);
    for (const o of orders) {
      const block = paidIn.get(o.id) as number;
      // Block `block` entered the solidified chain when block + SOLIDIFY_AFTER was made.
      const solidifiedAt = minedAt.get(block + SOLIDIFY_AFTER) as number;
      expect(solidifiedAt).toBeDefined();
      const latency = (outcomeSeenAt.get(o.id) as number) - solidifiedAt;
      expect(latency).toBeGreaterThanOrEqual(0);
      // One head poll, one pass and one call after the block: well under a second on a quiet
      // machine; the bound leaves room for a loaded one (the old 15-interval spacing took 7.5 s).
      expect(latency).toBeLessThan(2000);
    }
    const info = await t.devnetPost<{ requests: { by_path: Record<string, number> } }>("/devnet/info");
    const solidReads = info.requests.by_path["/walletsolidity/getnowblock"] ?? 0;
    expect(solidReads).toBeGreaterThanOrEqual(1);
    expect(solidReads).toBeLessThanOrEqual(lastBlock - firstBlock - 2);
  });
});
