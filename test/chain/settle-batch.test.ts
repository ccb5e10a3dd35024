/**
 * The confirmer settles a block's payments in one batch (settleOrdersTransfers): one transaction,
 * a fixed number of statements. These tests fail if the batch settles an order twice (a second
 * outcome event, webhook, ledger credit or sweep), misses one, mixes up two orders' amounts, or
 * settles an order whose other transfer is not final yet; also when two batches race, and when a
 * batch fails and falls back to settling order by order.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ledgerTransactions,
  orderEvents,
  settlements,
  transfers,
  webhookDeliveries,
} from "../../src/db/schema.js";
import { getMerchantBalance } from "../../src/ledger/post-ledger.js";
import { settleOrdersTransfers } from "../../src/payments/confirm-transfers.js";
import { CONFIRMATIONS, SOLIDIFY_AFTER, startChainTest, type ChainTest } from "./helpers.js";

const USDT = 1_000_000n;
const OUTCOME_EVENTS = ["payment_confirmed", "payment_underpaid", "payment_overpaid", "additional_payment"];

let t: ChainTest;

beforeAll(async () => {
  t = await startChainTest({ env: { SWEEP_ENABLED: "true" } });
  await t.scanner.sync();
});
afterAll(() => t.close());

/** Per order: its outcome events, its webhooks' statuses, its ledger credits and its settlements. */
async function books(ids: string[]) {
  const events = await t.ctx.db
    .select({ orderId: orderEvents.orderId, type: orderEvents.eventType, payload: orderEvents.payload })
    .from(orderEvents)
    .where(and(inArray(orderEvents.orderId, ids), inArray(orderEvents.eventType, OUTCOME_EVENTS)));
  const hooks = await t.ctx.db
    .select({
      orderId: webhookDeliveries.orderId,
      status: webhookDeliveries.status,
      payload: webhookDeliveries.payload,
    })
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.orderId, ids));
  const credits = await t.ctx.db
    .select({
      refId: ledgerTransactions.refId,
      amount: sql<string>`(SELECT amount::text FROM ledger_postings p
                           WHERE p.txn_id = ${ledgerTransactions.id} AND p.account = 'available')`,
    })
    .from(ledgerTransactions)
    .where(and(eq(ledgerTransactions.refType, "order"), inArray(ledgerTransactions.refId, ids)));
  const sweeps = await t.ctx.db
    .select({ orderId: settlements.orderId })
    .from(settlements)
    .where(inArray(settlements.orderId, ids));
  return Object.fromEntries(
    ids.map((id) => [
      id,
      {
        events: events.filter((e) => e.orderId === id).map((e) => e.type),
        hooks: hooks
          .filter((h) => h.orderId === id)
          .map((h) => `${h.status}:${(JSON.parse(h.payload) as { amount_received: string }).amount_received}`)
          .sort(),
        credits: credits.filter((c) => c.refId === id).map((c) => BigInt(c.amount)),
        sweeps: sweeps.filter((s) => s.orderId === id).length,
      },
    ]),
  );
}

/** The seen transfers of these orders, by order: what the confirmer hands to a batch. */
async function seenByOrder(ids: string[]): Promise<Map<string, string[]>> {
  const rows = await t.ctx.db
    .select({ id: transfers.id, orderId: transfers.orderId })
    .from(transfers)
    .where(and(inArray(transfers.orderId, ids), eq(transfers.status, "seen")));
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.orderId, [...(out.get(r.orderId) ?? []), r.id]);
  return out;
}

describe("settling a block's payments in one batch", () => {
  it("gives every order its own outcome once, waits for an order's unfinal transfer, and changes nothing when run again", async () => {
    // f already has an outcome (underpaid 5 of 10): the batch brings its additional payment.
    const f = await t.order("10");
    await t.pay(f.address, 5n * USDT);
    t.mine();
    await t.finalize();
    expect((await t.orderRow(f.id)).status).toBe("underpaid");

    const exact = await t.order("10");
    const under = await t.order("10");
    const over = await t.order("10");
    const split = await t.order("10"); // two transfers in the block: 4 + 6
    const later = await t.order("10"); // 5 in the block, 5 in the next one
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => t.order(String(i + 1))));
    await t.pay(exact.address, 10n * USDT);
    await t.pay(under.address, 9_990_000n);
    await t.pay(over.address, 10_500_000n);
    await t.pay(split.address, 4n * USDT);
    await t.pay(split.address, 6n * USDT);
    await t.pay(later.address, 5n * USDT);
    await t.pay(f.address, 5n * USDT);
    for (const [i, o] of many.entries()) await t.pay(o.address, BigInt(i + 1) * USDT);
    const block = t.mine();
    await t.pay(later.address, 5n * USDT);
    expect(t.mine()).toBe(block + 1);
    // `block` final (its CONFIRMATIONS, and solidified SOLIDIFY_AFTER blocks on), block + 1 not yet.
    t.mine(block + Math.max(CONFIRMATIONS - 1, SOLIDIFY_AFTER) - (block + 1));
    await t.scanner.sync();

    const ids = [exact, under, over, split, later, f, ...many].map((o) => o.id);
    const before = await books(ids);
    const expectOrder = async (
      o: { id: string },
      status: string,
      received: bigint,
      events: string[],
      credits: bigint[],
      hooks: string[],
    ) => {
      const row = await t.orderRow(o.id);
      expect([o.id, row.status, row.amountReceived]).toEqual([o.id, status, received]);
      expect(before[o.id]).toEqual({ events, hooks, credits, sweeps: credits.length > 0 ? 1 : 0 });
    };
    await expectOrder(
      exact,
      "confirmed",
      10n * USDT,
      ["payment_confirmed"],
      [10n * USDT],
      ["pending:10.000000"],
    );
    await expectOrder(
      under,
      "underpaid",
      9_990_000n,
      ["payment_underpaid"],
      [9_990_000n],
      ["pending:9.990000"],
    );
    await expectOrder(
      over,
      "overpaid",
      10_500_000n,
      ["payment_overpaid"],
      [10_500_000n],
      ["pending:10.500000"],
    );
    await expectOrder(
      split,
      "confirmed",
      10n * USDT,
      ["payment_confirmed"],
      [10n * USDT],
      ["pending:10.000000"],
    );
    await expectOrder(later, "detected", 0n, [], [], []);
    await expectOrder(
      f,
      "confirmed",
      10n * USDT,
      ["payment_underpaid", "additional_payment"],
      [5n * USDT, 5n * USDT],
      ["pending:10.000000", "superseded:5.000000"],
    );
    for (const [i, o] of many.entries()) {
      await expectOrder(
        o,
        "confirmed",
        BigInt(i + 1) * USDT,
        ["payment_confirmed"],
        [BigInt(i + 1) * USDT],
        [`pending:${i + 1}.000000`],
      );
    }
    expect((await t.transfersOf(later.id)).map((x) => x.status)).toEqual(["confirmed", "seen"]);
    const additional = (
      await t.ctx.db
        .select({ payload: orderEvents.payload })
        .from(orderEvents)
        .where(and(eq(orderEvents.orderId, f.id), eq(orderEvents.eventType, "additional_payment")))
    )[0]?.payload;
    expect(additional).toMatchObject({ previous_amount_received: "5.000000", amount_received: "10.000000" });

    // Run again, by the confirmer and by hand with every transfer of the block: nothing changes.
    const balance = await getMerchantBalance(t.ctx.db, t.merchantId);
    await t.scanner.confirmOnce();
    const all = await t.ctx.db
      .select({ id: transfers.id, orderId: transfers.orderId })
      .from(transfers)
      .where(and(inArray(transfers.orderId, ids), eq(transfers.blockNumber, block)));
    const again = new Map<string, string[]>();
    for (const r of all) again.set(r.orderId, [...(again.get(r.orderId) ?? []), r.id]);
    expect(again.size).toBe(ids.length);
    const results = await settleOrdersTransfers(t.ctx, again);
    expect([...results.values()].filter((r) => r.outcome !== undefined)).toEqual([]);
    expect(await books(ids)).toEqual(before);
    expect(await getMerchantBalance(t.ctx.db, t.merchantId)).toEqual(balance);

    // The next block becomes final: only `later` settles, once.
    t.mine();
    await t.scanner.sync();
    const after = await books(ids);
    expect((await t.orderRow(later.id)).status).toBe("confirmed");
    expect(after[later.id]).toEqual({
      events: ["payment_confirmed"],
      hooks: ["pending:10.000000"],
      credits: [10n * USDT],
      sweeps: 1,
    });
    expect({ ...after, [later.id]: before[later.id] }).toEqual(before);
  });

  it("settles each order once when two batches race over the same orders", async () => {
    const orders = await Promise.all(Array.from({ length: 12 }, () => t.order("3")));
    for (const o of orders) await t.pay(o.address, 3n * USDT);
    t.mine();
    await t.newScanner().scanOnce(); // detected; the confirmer has not run
    const ids = orders.map((o) => o.id);
    const batch = await seenByOrder(ids);
    expect(batch.size).toBe(orders.length);
    const balance = await getMerchantBalance(t.ctx.db, t.merchantId);

    const [a, b] = await Promise.all([
      settleOrdersTransfers(t.ctx, batch),
      settleOrdersTransfers(t.ctx, batch),
    ]);
    const outcomes = ids.map((id) => [a.get(id)?.outcome, b.get(id)?.outcome].filter(Boolean));
    expect(outcomes).toEqual(ids.map(() => ["confirmed"]));
    const got = await books(ids);
    for (const id of ids) {
      expect(got[id]).toEqual({
        events: ["payment_confirmed"],
        hooks: ["pending:3.000000"],
        credits: [3n * USDT],
        sweeps: 1,
      });
    }
    expect((await getMerchantBalance(t.ctx.db, t.merchantId)).available).toBe(
      balance.available + BigInt(orders.length) * 3n * USDT,
    );
    await t.finalize(); // the scanner's own confirmer finds nothing left to do
    expect(await books(ids)).toEqual(got);
  });

  it("settles order by order, each once, when the batch's transaction fails", async () => {
    const orders = await Promise.all(Array.from({ length: 5 }, () => t.order("2")));
    for (const o of orders) await t.pay(o.address, 2n * USDT);
    t.mine();
    await t.newScanner().scanOnce();
    const ids = orders.map((o) => o.id);
    const batch = await seenByOrder(ids);
    // A statement queueing more than one webhook fails: the batch's whole transaction rolls back
    // after its outcomes and credits were written; one order at a time passes.
    await t.ctx.db.execute(sql`
      CREATE FUNCTION test_refuse_webhook_batches() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT count(*) FROM new_rows) > 1 THEN RAISE EXCEPTION 'webhook batch refused by the test'; END IF;
        RETURN NULL;
      END $$`);
    await t.ctx.db.execute(sql`
      CREATE TRIGGER test_refuse_webhook_batches AFTER INSERT ON webhook_deliveries
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION test_refuse_webhook_batches()`);
    try {
      const results = await settleOrdersTransfers(t.ctx, batch);
      expect(ids.map((id) => results.get(id)?.outcome)).toEqual(ids.map(() => "confirmed"));
    } finally {
      await t.ctx.db.execute(sql`DROP TRIGGER test_refuse_webhook_batches ON webhook_deliveries`);
      await t.ctx.db.execute(sql`DROP FUNCTION test_refuse_webhook_batches()`);
    }
    const got = await books(ids);
    for (const id of ids) {
      expect(got[id]).toEqual({
        events: ["payment_confirmed"],
        hooks: ["pending:2.000000"],
        credits: [2n * USDT],
        sweeps: 1,
      });
    }
  });
});
