/**
 * The rollups of migration 0004 stay equal to a full recount through every kind of change, and
 * check-rollups notices when they do not. Runs on PGlite and on PostgreSQL (TEST_DATABASE_URL).
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Executor } from "../../src/db/connection.js";
import { queryRows } from "../../src/db/query-rows.js";
import { orders } from "../../src/db/schema.js";
import { transitionOrder, transitionOrders } from "../../src/orders/transitions.js";
import { createOrder } from "../../src/payments/create-order.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";
import { confirmPayment } from "../webhooks/fixtures.js";

let t: TestApp;
let shop: TestMerchant;
let other: TestMerchant;
beforeAll(async () => {
  t = await createTestApp();
  shop = await addMerchant(t.ctx);
  other = await addMerchant(t.ctx);
});
afterAll(() => t.close());

interface Counter extends Record<string, unknown> {
  day: string;
  merchant_id: string;
  status: string;
  order_count: string;
  amount_received: string;
}

async function daily(): Promise<Counter[]> {
  return queryRows<Counter>(
    t.ctx.db,
    sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, merchant_id::text AS merchant_id, status,
        order_count::text AS order_count, amount_received::text AS amount_received
      FROM order_rollups_daily WHERE order_count <> 0 OR amount_received <> 0
      ORDER BY day, merchant_id, status`,
  );
}

const counter = (merchant: TestMerchant, day: string, status: string, n: number, amount: bigint) => ({
  day,
  merchant_id: merchant.id,
  status,
  order_count: String(n),
  amount_received: amount.toString(),
});

/** Reads through the given executor: PGlite has one connection, held by an open transaction. */
async function loadOrder(id: string, db: Executor = t.ctx.db) {
  const [row] = await db.select().from(orders).where(eq(orders.id, id));
  return row!;
}

const input = (externalId: string, amount = "10") => ({
  externalId,
  amount,
  currency: "USDT" as const,
  callbackUrl: "https://shop.example.com/cb",
});

describe("order rollups", { timeout: 120_000 }, () => {
  it("count creations and follow every transition, additional payment, update and delete exactly", async () => {
    t.clock.set("2026-03-01T23:59:59.000Z");
    const a = (await createOrder(t.ctx, shop, input("r-a"))).order;
    t.clock.set("2026-03-02T00:00:00.000Z");
    const [b, c] = await Promise.all([
      createOrder(t.ctx, shop, input("r-b", "20")),
      createOrder(t.ctx, other, input("r-c", "30")),
    ]);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    expect(await daily()).toEqual(
      [
        counter(shop, "2026-03-01", "pending", 1, 0n),
        counter(shop, "2026-03-02", "pending", 1, 0n),
        counter(other, "2026-03-02", "pending", 1, 0n),
      ].sort((x, y) => `${x.day}${x.merchant_id}`.localeCompare(`${y.day}${y.merchant_id}`)),
    );

    // pending -> detected -> underpaid (9 of 10), then an additional payment: overpaid (11).
    await confirmPayment(t.ctx, a.id, 9_000_000n);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    await confirmPayment(t.ctx, a.id, 2_000_000n);
    // An additional payment within the same outcome changes only the amount.
    await confirmPayment(t.ctx, a.id, 1_000_000n);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    expect((await daily()).filter((row) => row.day === "2026-03-01")).toEqual([
      counter(shop, "2026-03-01", "overpaid", 1, 12_000_000n),
    ]);

    // Expiry, a late payment, and a batch transition (the webhook sender's completion).
    const orderB = await loadOrder(b.order.id);
    await t.ctx.db.transaction((tx) =>
      transitionOrder(t.ctx, tx, { order: orderB, to: "expired", event: "order_expired" }),
    );
    await confirmPayment(t.ctx, c.order.id, 30_000_000n);
    await t.ctx.db.transaction(async (tx) => {
      await transitionOrders(t.ctx, tx, {
        orders: [await loadOrder(a.id, tx), await loadOrder(c.order.id, tx)],
        to: "completed",
        event: "order_completed",
      });
    });
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    expect((await daily()).filter((row) => row.merchant_id === other.id)).toEqual([
      counter(other, "2026-03-02", "completed", 1, 30_000_000n),
    ]);

    // A transaction that rolls back leaves the counters as they were.
    await expect(
      t.ctx.db.transaction(async (tx) => {
        await transitionOrder(t.ctx, tx, {
          order: await loadOrder(b.order.id, tx),
          to: "detected",
          event: "late_payment",
        });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await checkRollups(t.ctx.db)).toEqual([]);

    // Writers outside transitionOrder are covered too: a plain UPDATE and a DELETE.
    await t.ctx.db.update(orders).set({ amountReceived: 5n }).where(eq(orders.id, b.order.id));
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    await t.ctx.db.execute(sql`DELETE FROM order_events WHERE order_id = ${b.order.id}::uuid`);
    await t.ctx.db.execute(sql`UPDATE addresses SET order_id = NULL WHERE order_id = ${b.order.id}::uuid`);
    await t.ctx.db.delete(orders).where(eq(orders.id, b.order.id));
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    expect((await daily()).filter((row) => row.day === "2026-03-02" && row.merchant_id === shop.id)).toEqual(
      [],
    );
  });

  it("stay exact when many creations and transitions of one merchant and day interleave", async () => {
    t.clock.set("2026-03-05T10:00:00.000Z");
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createOrder(t.ctx, shop, input(`burst-${i}`, "5"))),
    );
    await Promise.all(
      created.map(({ order }, i) =>
        i % 2 === 0
          ? confirmPayment(t.ctx, order.id, 5_000_000n + BigInt(i + 1))
          : t.ctx.db.transaction(async (tx) =>
              transitionOrder(t.ctx, tx, {
                order: await loadOrder(order.id, tx),
                to: "expired",
                event: "order_expired",
              }),
            ),
      ),
    );
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    const day = (await daily()).filter((row) => row.day === "2026-03-05");
    expect(day.map((row) => [row.status, row.order_count])).toEqual([
      ["expired", "20"],
      ["overpaid", "20"],
    ]);
    const sum = (day.find((row) => row.status === "overpaid") as Counter).amount_received;
    // 20 x 5 USDT plus i + 1 micro-units for each even i in 0..38 (1 + 3 + ... + 39).
    expect(sum).toBe(String(20n * 5_000_000n + 400n));
  });

  it("check-rollups reports a counter that differs from the recount, and a missing incident", async () => {
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    await t.ctx.db.execute(
      sql`UPDATE order_rollups_daily SET order_count = order_count + 1
        WHERE day = '2026-03-05' AND merchant_id = ${shop.id}::uuid AND status = 'expired'`,
    );
    t.clock.set("2026-03-06T08:00:00.000Z");
    const order = (await createOrder(t.ctx, other, input("incident-1"))).order;
    const eventId = "4a4d8f5e-2f1c-4a53-9d0e-3b2d6f1a0c01";
    await t.ctx.db.execute(sql`INSERT INTO order_events (id, order_id, event_type, payload, created_at)
      VALUES (${eventId}::uuid, ${order.id}::uuid, 'sweep_failed', '{}', now())`);
    expect(await checkRollups(t.ctx.db)).toHaveLength(1);
    await t.ctx.db.execute(sql`DELETE FROM merchant_incidents WHERE event_id = ${eventId}::uuid`);
    expect(await checkRollups(t.ctx.db)).toEqual([
      {
        table: "order_rollups_daily",
        key: { day: "2026-03-05", merchant_id: shop.id, status: "expired", chain: "tron", currency: "USDT" },
        stored: ["21", "0", "0"],
        actual: ["20", "0", "0"],
      },
      { table: "merchant_incidents", key: { merchant_id: other.id }, stored: ["0"], actual: ["1"] },
    ]);
    await t.ctx.db.execute(
      sql`UPDATE order_rollups_daily SET order_count = order_count - 1
        WHERE day = '2026-03-05' AND merchant_id = ${shop.id}::uuid AND status = 'expired'`,
    );
    await t.ctx.db.execute(sql`INSERT INTO merchant_incidents (event_id, merchant_id, created_at)
      SELECT id, ${other.id}::uuid, created_at FROM order_events WHERE id = ${eventId}::uuid`);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    // A paid-in-full count (migration 0028) that differs is reported too.
    await t.ctx.db.execute(
      sql`UPDATE order_rollups_total SET paid_in_full_count = paid_in_full_count + 1
        WHERE merchant_id = ${shop.id}::uuid AND status = 'expired'`,
    );
    expect(await checkRollups(t.ctx.db)).toEqual([
      {
        table: "order_rollups_total",
        key: { merchant_id: shop.id, status: "expired", chain: "tron", currency: "USDT" },
        stored: [expect.any(String), "0", "1"],
        actual: [expect.any(String), "0", "0"],
      },
    ]);
    await t.ctx.db.execute(
      sql`UPDATE order_rollups_total SET paid_in_full_count = paid_in_full_count - 1
        WHERE merchant_id = ${shop.id}::uuid AND status = 'expired'`,
    );
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});

describe("check-rollups and the address pool", () => {
  it("reports a pool whose derivation indexes are not contiguous, and pool counters that differ", async () => {
    expect((await checkRollups(t.ctx.db)).filter((d) => d.table === "addresses")).toEqual([]);
    const [{ next, free } = { next: "0", free: "0" }] = await queryRows<{ next: string; free: string }>(
      t.ctx.db,
      sql`SELECT (coalesce(max(derivation_index), -1) + 1)::text AS next,
            count(*) FILTER (WHERE status = 'free')::text AS free FROM addresses`,
    );
    await t.ctx.db.execute(sql`
      INSERT INTO addresses (derivation_index, address, status, created_at)
      VALUES (${Number(next) + 5}, 'TGapAddressForTheCheck', 'free', now())`);
    const pool = (await checkRollups(t.ctx.db)).filter((d) => d.table === "addresses");
    // next_index (address_pool_state) and max + 1 against the number of addresses.
    expect(pool).toEqual([
      {
        table: "addresses",
        key: { pool: "size" },
        stored: [next, String(Number(next) + 6)],
        actual: [String(Number(next) + 1), String(Number(next) + 1)],
      },
    ]);
    await t.ctx.db.execute(sql`DELETE FROM addresses WHERE address = 'TGapAddressForTheCheck'`);
    expect((await checkRollups(t.ctx.db)).filter((d) => d.table.startsWith("address"))).toEqual([]);
    // The counters kept by the trigger against a recount of the addresses.
    await t.ctx.db.execute(sql`UPDATE address_pool_counts SET free = free + 3 WHERE slot = 0`);
    expect((await checkRollups(t.ctx.db)).filter((d) => d.table === "address_pool_counts")).toEqual([
      {
        table: "address_pool_counts",
        key: { pool: "free/total" },
        stored: [String(Number(free) + 3), next],
        actual: [free, next],
      },
    ]);
    await t.ctx.db.execute(sql`UPDATE address_pool_counts SET free = free - 3 WHERE slot = 0`);
  });
});
