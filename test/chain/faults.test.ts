import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transfers } from "../../src/db/schema.js";
import { chainTransfers, startChainTest, type ChainTest } from "./helpers.js";
import { poll } from "../helpers/poll.js";

let t: ChainTest;
let watched: Set<string>;
let scannedFrom: number;
let orderIds: string[];

beforeAll(async () => {
  t = await startChainTest();
  await t.scanner.sync();
  scannedFrom = (await t.cursor()) as number;
  const orders = await Promise.all(Array.from({ length: 8 }, () => t.order("30")));
  watched = new Set(orders.map((o) => o.address));
  orderIds = orders.map((o) => o.id);
});
afterAll(() => t.close());

describe("a flaky node", () => {
  it("recovers from 429, 5xx and malformed bodies without losing or repeating a block", async () => {
    const { to } = await t.devnetPost<{ to: number }>("/devnet/load", {
      blocks: 40,
      tx_per_block: 20,
      usdt_per_block: 6,
      to_addresses: [...watched],
      usdt_amount: "5",
    });
    const faults = await t.devnetPost<{ faults: unknown }>("/devnet/faults", {
      rate_429: 0.2,
      rate_500: 0.2,
      rate_malformed: 0.2,
    });
    expect(faults.faults).not.toBeNull();

    const controller = new AbortController();
    const scanner = t.newScanner({ concurrency: 8, batchSize: 5 });
    const running = scanner.run(controller.signal);
    try {
      await poll("the scanner to reach the last block", () => t.cursor(), {
        timeoutMs: 25_000,
        intervalMs: 20,
        until: (cursor) => cursor === to,
      });
      // Confirmations under faults too: mine past the solidified mark and wait for the outcomes.
      t.mine(5);
      await poll("every order past detected", () => Promise.all(orderIds.map((id) => t.orderRow(id))), {
        timeoutMs: 25_000,
        intervalMs: 20,
        until: (rows) => rows.every((r) => r.status !== "detected"),
      });
    } finally {
      controller.abort();
      await running;
      await t.devnetPost("/devnet/faults", {});
    }

    const info = await fetch(`${t.devnet.url}/devnet/info`).then(
      (r) => r.json() as Promise<{ requests: { total: number } }>,
    );
    expect(info.requests.total).toBeGreaterThan(0);
    const rows = await t.ctx.db.select({ tx: transfers.txHash, i: transfers.logIndex }).from(transfers);
    const recorded = rows.map((r) => `${r.tx}:${r.i}`).sort();
    const expected = await chainTransfers(t, watched, scannedFrom + 1, to);
    expect(expected.length).toBe(40 * 6);
    expect(recorded).toEqual(expected);
    let paid = 0;
    for (const id of orderIds) {
      const order = await t.orderRow(id);
      const credited = await t.transfersOf(id);
      expect(credited.every((x) => x.status === "confirmed")).toBe(true);
      expect(order.amountReceived).toBe(BigInt(credited.length) * 5_000_000n);
      if (credited.length > 0) {
        paid += 1;
        expect(["underpaid", "confirmed", "overpaid"]).toContain(order.status);
      }
    }
    expect(paid).toBeGreaterThan(1);
  });
});
