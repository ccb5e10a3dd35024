import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { createOrder } from "../../src/payments/create-order.js";
import { INLINE_BLOCK_SIZE } from "../../src/wallet/derive-address-inline.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, type TestMerchant } from "./helpers.js";

// Concurrent creations share one statement (StatementBatcher); every request must still get
// exactly the outcome it would get alone.
let t: TestApp;
let merchant: TestMerchant;
beforeAll(async () => {
  t = await createTestApp();
  merchant = await addMerchant(t.ctx);
});
afterAll(async () => {
  await t.close();
});

const input = (externalId: string, amount = "25") => ({
  externalId,
  amount,
  currency: "USDT" as const,
  callbackUrl: "https://shop.example.com/cb",
});

async function bindings(orderIds: string[]) {
  return queryRows<{ order_id: string; order_address: string; bound_to: string | null; events: number }>(
    t.ctx.db,
    sql`SELECT o.id::text AS order_id, o.address AS order_address, a.order_id::text AS bound_to,
          (SELECT count(*) FROM order_events e WHERE e.order_id = o.id AND e.event_type = 'order_created')::int AS events
        FROM orders o JOIN addresses a ON a.id = o.address_id
        WHERE o.id = ANY(${`{${orderIds.join(",")}}`}::uuid[])`,
  );
}

describe("order creation under concurrency", () => {
  it("gives 60 concurrent orders 60 distinct addresses, each bound to its order with one event", async () => {
    await fillAddressPool(t.ctx, { target: 80, batchSize: 80 });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => createOrder(t.ctx, merchant, input(`many-${i}`))),
    );
    expect(results.every((r) => r.created)).toBe(true);
    expect(new Set(results.map((r) => r.order.address)).size).toBe(60);
    const rows = await bindings(results.map((r) => r.order.id));
    expect(rows).toHaveLength(60);
    for (const row of rows) {
      expect(row.bound_to).toBe(row.order_id);
      expect(row.events).toBe(1);
    }
    for (const [i, r] of results.entries()) expect(r.order.external_id).toBe(`many-${i}`);
  });

  it("answers a double submit in one batch with one order: one 201, the rest replays, a changed amount 409", async () => {
    const attempts = await Promise.allSettled([
      ...Array.from({ length: 8 }, () => createOrder(t.ctx, merchant, input("double-1"))),
      createOrder(t.ctx, merchant, input("double-1", "26")),
    ]);
    const fulfilled = attempts.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
    expect(fulfilled).toHaveLength(8);
    expect(fulfilled.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(fulfilled.map((r) => r.order.id)).size).toBe(1);
    const rejected = attempts.at(-1);
    expect(rejected?.status).toBe("rejected");
    expect((rejected as PromiseRejectedResult).reason).toMatchObject({ code: "EXTERNAL_ID_CONFLICT" });
    const [count] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM orders WHERE external_id = 'double-1'`,
    );
    expect(count?.n).toBe(1);
  });

  it("refuses only the suspended merchant's requests in a batch shared with an active merchant", async () => {
    const suspended = await addMerchant(t.ctx);
    await t.ctx.db.execute(sql`UPDATE merchants SET is_active = false WHERE id = ${suspended.id}::uuid`);
    const attempts = await Promise.allSettled([
      createOrder(t.ctx, merchant, input("mixed-1")),
      createOrder(t.ctx, suspended, input("mixed-2")),
      createOrder(t.ctx, merchant, input("mixed-3")),
    ]);
    expect(attempts.map((a) => a.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((attempts[1] as PromiseRejectedResult).reason).toMatchObject({ code: "MERCHANT_INACTIVE" });
    const [count] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM orders WHERE merchant_id = ${suspended.id}::uuid`,
    );
    expect(count?.n).toBe(0);
  });

  it("derives inline for the part of a batch the pool cannot serve", async () => {
    const [pool] = await queryRows<{ free: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS free FROM addresses WHERE status = 'free'`,
    );
    const free = pool?.free ?? 0;
    const results = await Promise.all(
      Array.from({ length: free + 6 }, (_, i) => createOrder(t.ctx, merchant, input(`short-${i}`))),
    );
    expect(results.every((r) => r.created)).toBe(true);
    expect(new Set(results.map((r) => r.order.address)).size).toBe(free + 6);
    const rows = await bindings(results.map((r) => r.order.id));
    expect(rows.every((row) => row.bound_to === row.order_id && row.events === 1)).toBe(true);
    const [after] = await queryRows<{ free: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS free FROM addresses WHERE status = 'free'`,
    );
    // One inline block served the part the pool could not: its rest stays free.
    expect(after?.free).toBe(INLINE_BLOCK_SIZE - 6);
  });
});
