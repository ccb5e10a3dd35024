import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderStatus } from "../../src/db/schema.js";
import { orders } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { parseAmount } from "../../src/money.js";
import { appendOrderEvent, transitionOrder, type OrderEventType } from "../../src/orders/transitions.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";

let t: TestApp;
let cookie: string;
let alpha: TestMerchant;
let beta: TestMerchant;

const get = (url: string) => t.app.inject({ method: "GET", url, headers: { cookie } });

/** Walks an order through the transition table to `status`, crediting `received` on the way. */
const PATHS: Record<OrderStatus, [OrderStatus, OrderEventType][]> = {
  pending: [],
  detected: [["detected", "payment_detected"]],
  expired: [["expired", "order_expired"]],
  cancelled: [["cancelled", "order_cancelled"]],
  confirmed: [
    ["detected", "payment_detected"],
    ["confirmed", "payment_confirmed"],
  ],
  underpaid: [
    ["detected", "payment_detected"],
    ["underpaid", "payment_underpaid"],
  ],
  overpaid: [
    ["detected", "payment_detected"],
    ["overpaid", "payment_overpaid"],
  ],
  completed: [
    ["detected", "payment_detected"],
    ["confirmed", "payment_confirmed"],
    ["completed", "order_completed"],
  ],
  callback_failed: [
    ["detected", "payment_detected"],
    ["confirmed", "payment_confirmed"],
    ["callback_failed", "webhook_failed"],
  ],
};

async function fixtureOrder(
  merchant: TestMerchant,
  createdAt: string,
  expected: string,
  received: string,
  status: OrderStatus,
  path = PATHS[status],
  on: { chain?: string; currency?: string } = {},
): Promise<string> {
  const id = newId();
  const at = new Date(createdAt);
  const [order] = await t.ctx.db
    .insert(orders)
    .values({
      id,
      merchantId: merchant.id,
      externalId: `fx-${id}`,
      amountExpected: parseAmount(expected)!,
      amountReceived: 0n,
      network: "devnet",
      status: "pending",
      address: `T${id.replace(/-/g, "").slice(0, 33)}`,
      callbackUrl: "https://merchant.example.com/cb",
      expiresAt: new Date(at.getTime() + 1_800_000),
      createdAt: at,
      updatedAt: at,
      ...on,
    })
    .returning();
  let current = order!;
  for (const [to, event] of path) {
    const patch = to === "detected" ? { amountReceived: parseAmount(received)! } : {};
    current = (await transitionOrder(t.ctx, t.ctx.db, { order: current, to, event, patch })).order;
  }
  return id;
}

const paidInFull = (final: number, full: number, expired: number, rate: string) => ({
  final_count: final,
  paid_in_full_count: full,
  expired_count: expired,
  paid_in_full_rate: rate,
});

beforeAll(async () => {
  // "now" is 2026-01-15T12:00:00Z: today = 01-15, the week = 01-09 .. 01-15.
  t = await createTestApp({ env: { POOL_MIN_FREE: "4" } });
  cookie = await adminCookie(t.app);
  alpha = await addMerchant(t.ctx, "Alpha");
  beta = await addMerchant(t.ctx, "Beta");
  await addMerchant(t.ctx, "Gamma (no orders)");
  await fillAddressPool(t.ctx);
  await fixtureOrder(alpha, "2026-01-15T01:00:00.000Z", "10", "10", "completed");
  await fixtureOrder(beta, "2026-01-15T00:00:00.000Z", "5", "4.5", "underpaid");
  await fixtureOrder(alpha, "2026-01-15T11:00:00.000Z", "1.5", "1.5", "confirmed");
  await fixtureOrder(alpha, "2026-01-14T23:59:59.999Z", "7", "0", "pending");
  await fixtureOrder(beta, "2026-01-12T10:00:00.000Z", "20", "25", "completed", [
    ["detected", "payment_detected"],
    ["overpaid", "payment_overpaid"],
    ["completed", "order_completed"],
  ]);
  await fixtureOrder(alpha, "2026-01-09T00:00:00.000Z", "3", "3", "callback_failed");
  await fixtureOrder(beta, "2026-01-08T23:59:59.999Z", "100", "100", "completed");
  // Detected: amount seen but not confirmed, so it is not received yet.
  await fixtureOrder(alpha, "2026-01-10T05:00:00.000Z", "8", "8", "detected");
  await fixtureOrder(alpha, "2026-01-13T00:00:00.000Z", "2", "0", "expired");
  await fixtureOrder(beta, "2026-01-11T08:00:00.000Z", "0.333333", "0.333333", "overpaid", [
    ["detected", "payment_detected"],
    ["overpaid", "payment_overpaid"],
  ]);
});
afterAll(async () => {
  await t.close();
});

describe("GET /api/v1/admin/stats", () => {
  it("computes today, week and total from the hand-checked fixture", async () => {
    const res = await get("/api/v1/admin/stats");
    expect(res.statusCode).toBe(200);
    const { by_chain_currency: byChain, ...body } = res.json();
    // Every fixture order is on TRON in USDT: the one row of the breakdown holds the same figures.
    expect(byChain).toEqual([
      { chain: "tron", currency: "USDT", today: body.today, week: body.week, total: expect.any(Object) },
    ]);
    expect({ ...byChain[0].total, merchant_count: 3 }).toEqual(body.total);
    expect(body).toEqual({
      currencies: ["USDT"],
      // 10 + 4.5 + 1.5; 1 of 3 completed; paid in full: 10 and 1.5, not the underpaid 4.5
      today: {
        order_count: 3,
        completed_count: 1,
        total_received: "16.000000",
        success_rate: "33.33",
        ...paidInFull(3, 2, 0, "66.67"),
      },
      // + 25 (overpaid, completed) + 3 (callback_failed) + 0.333333 (overpaid); detected 8 not counted.
      // Final: those 6 and the expired order; the pending and detected ones are not final.
      week: {
        order_count: 9,
        completed_count: 2,
        total_received: "44.333333",
        success_rate: "22.22",
        ...paidInFull(7, 5, 1, "71.43"),
      },
      total: {
        order_count: 10,
        completed_count: 3,
        total_received: "144.333333",
        success_rate: "30.00",
        ...paidInFull(8, 6, 1, "75.00"),
        merchant_count: 3,
      },
      address_pool: { total: 4, free: 4, allocated: 0 },
      address_pools: [{ family: "tron", total: 4, free: 4, allocated: 0 }],
      stray_transfers: {
        count: 0,
        amount: "0.000000",
        unresolved_count: 0,
        unresolved_amount: "0.000000",
        dust_addresses: 0,
        dust_amount: "0.000000",
      },
      // no static-address deposits in this fixture (test/deposits/deposits-chain.test.ts has them)
      deposits: {
        today: { deposit_count: 0, total_received: "0.000000" },
        week: { deposit_count: 0, total_received: "0.000000" },
        total: { deposit_count: 0, total_received: "0.000000" },
        // No deposits: their amounts add no currency.
        currencies: [],
        by_chain_currency: [],
      },
    });
  });

  it("answers zeros and 0.00 on a day without orders", async () => {
    t.clock.set("2026-03-01T00:00:00.000Z");
    try {
      // The session of January has expired by March: log in again.
      const march = await adminCookie(t.app);
      const body = (
        await t.app.inject({ method: "GET", url: "/api/v1/admin/stats", headers: { cookie: march } })
      ).json();
      expect(body.today).toEqual({
        order_count: 0,
        completed_count: 0,
        total_received: "0.000000",
        success_rate: "0.00",
        ...paidInFull(0, 0, 0, "0.00"),
      });
      expect(body.week.order_count).toBe(0);
      expect(body.total.order_count).toBe(10);
    } finally {
      t.clock.set("2026-01-15T12:00:00.000Z");
    }
  });

  it("counts an accepted underpaid order as final but short, and a cancelled one not at all", async () => {
    const before = (await get("/api/v1/admin/stats")).json().total;
    await fixtureOrder(alpha, "2025-06-01T00:00:00.000Z", "9", "0", "cancelled");
    // Underpaid, then accepted by hand: confirmed at 8 of 9, so still not paid in full.
    await fixtureOrder(alpha, "2025-06-01T01:00:00.000Z", "9", "8", "confirmed", [
      ...PATHS.underpaid,
      ["confirmed", "manually_resolved"],
    ]);
    // Overpaid, then its webhook delivered: paid in full.
    await fixtureOrder(beta, "2025-06-01T02:00:00.000Z", "9", "9.5", "completed", [
      ...PATHS.overpaid,
      ["completed", "order_completed"],
    ]);
    const after = (await get("/api/v1/admin/stats")).json().total;
    expect(after.order_count - before.order_count).toBe(3);
    expect(after.final_count - before.final_count).toBe(2);
    expect(after.paid_in_full_count - before.paid_in_full_count).toBe(1);
    expect(after.expired_count).toBe(before.expired_count);
    // 7 of 10
    expect(after.paid_in_full_rate).toBe("70.00");
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });

  it("needs the admin cookie", async () => {
    expect((await t.app.inject({ method: "GET", url: "/api/v1/admin/stats" })).statusCode).toBe(401);
    expect((await t.app.inject({ method: "GET", url: "/api/v1/admin/stats/daily" })).statusCode).toBe(401);
    expect((await t.app.inject({ method: "GET", url: "/api/v1/admin/incidents" })).statusCode).toBe(401);
  });
});

describe("GET /api/v1/admin/stats/daily", () => {
  it("gives 7 UTC days oldest first, zero-filled, adding up to the week", async () => {
    const res = await get("/api/v1/admin/stats/daily");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { date: "2026-01-09", total_received: "3.000000" },
      { date: "2026-01-10", total_received: "0.000000" },
      { date: "2026-01-11", total_received: "0.333333" },
      { date: "2026-01-12", total_received: "25.000000" },
      { date: "2026-01-13", total_received: "0.000000" },
      { date: "2026-01-14", total_received: "0.000000" },
      { date: "2026-01-15", total_received: "16.000000" },
    ]);
  });
});

describe("GET /api/v1/admin/incidents", () => {
  it("lists the 10 most recent webhook_failed and sweep_failed events with their order", async () => {
    const incidentOrder = await fixtureOrder(alpha, "2026-01-14T10:00:00.000Z", "1", "1", "confirmed");
    // After "now", so newer than the webhook_failed of the callback_failed fixture order.
    const base = new Date("2026-01-15T13:00:00.000Z").getTime();
    for (let i = 0; i < 12; i++) {
      const type: OrderEventType = i % 2 === 0 ? "webhook_failed" : "sweep_failed";
      const payload =
        type === "webhook_failed"
          ? { reason: `http 500 #${i}`, attempt: 10 }
          : { reason: "boom", attempt: 3, step: "fee" };
      await appendOrderEvent(t.ctx, t.ctx.db, incidentOrder, type, payload, new Date(base + i * 60_000));
    }
    // A newer event of another type is not an incident.
    await appendOrderEvent(
      t.ctx,
      t.ctx.db,
      incidentOrder,
      "webhook_delivered",
      {},
      new Date(base + 3_600_000),
    );
    const res = await get("/api/v1/admin/incidents");
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toHaveLength(10);
    expect(data.map((d: { created_at: string }) => d.created_at)).toEqual(
      Array.from({ length: 10 }, (_, k) => new Date(base + (11 - k) * 60_000).toISOString()),
    );
    const [order] = await t.ctx.db.select().from(orders).where(eq(orders.id, incidentOrder));
    expect(data[1]).toEqual({
      id: expect.any(String),
      created_at: new Date(base + 10 * 60_000).toISOString(),
      event_type: "webhook_failed",
      payload: { reason: "http 500 #10", attempt: 10 },
      order_id: incidentOrder,
      order_status: "confirmed",
      external_id: order!.externalId,
      merchant_name: "Alpha",
    });
    expect(data[0].event_type).toBe("sweep_failed");
  });
});

describe("stats per chain and currency", () => {
  const received = (body: { total: { total_received: string } }) => parseAmount(body.total.total_received)!;

  it("filters by chain and currency, breaks the figures down per pair, and says when amounts add currencies", async () => {
    const before = (await get("/api/v1/admin/stats")).json();
    const tronBefore = before.by_chain_currency.find((row: { chain: string }) => row.chain === "tron");
    await fixtureOrder(alpha, "2026-01-15T02:00:00.000Z", "7", "7", "completed", PATHS.completed, {
      chain: "ethereum",
      currency: "USDC",
    });
    await fixtureOrder(beta, "2026-01-13T02:00:00.000Z", "5", "4", "underpaid", PATHS.underpaid, {
      chain: "ethereum",
      currency: "USDT",
    });
    await fixtureOrder(alpha, "2026-01-01T00:00:00.000Z", "2", "2", "confirmed", PATHS.confirmed, {
      chain: "bsc",
      currency: "USDT",
    });

    const all = (await get("/api/v1/admin/stats")).json();
    expect(all.currencies).toEqual(["USDC", "USDT"]);
    expect(
      all.by_chain_currency.map((row: { chain: string; currency: string }) => `${row.chain}/${row.currency}`),
    ).toEqual(["bsc/USDT", "ethereum/USDC", "ethereum/USDT", "tron/USDT"]);
    // TRON's row did not move; the top-level total adds every pair: + 7 USDC + 4 + 2 USDT.
    expect(all.by_chain_currency[3]).toEqual(tronBefore);
    expect(received(all) - received(before)).toBe(13_000_000n);

    const ethereum = await get("/api/v1/admin/stats?chain=ethereum");
    expect(ethereum.statusCode).toBe(200);
    const eth = ethereum.json();
    expect(eth.currencies).toEqual(["USDC", "USDT"]);
    expect([eth.today.order_count, eth.today.total_received]).toEqual([1, "7.000000"]);
    expect([eth.week.order_count, eth.week.completed_count, eth.week.total_received]).toEqual([
      2,
      1,
      "11.000000",
    ]);
    expect([eth.total.order_count, eth.total.paid_in_full_count, eth.total.final_count]).toEqual([2, 1, 2]);
    expect(eth.by_chain_currency.map((row: { currency: string }) => row.currency)).toEqual(["USDC", "USDT"]);
    expect(eth.by_chain_currency[1].week).toMatchObject({ order_count: 1, total_received: "4.000000" });

    const usdc = (await get("/api/v1/admin/stats?currency=USDC")).json();
    expect(usdc.currencies).toEqual(["USDC"]);
    expect(usdc.total).toMatchObject({ order_count: 1, completed_count: 1, total_received: "7.000000" });
    expect(usdc.by_chain_currency).toEqual([
      { chain: "ethereum", currency: "USDC", today: usdc.today, week: usdc.week, total: expect.any(Object) },
    ]);

    const pair = (await get("/api/v1/admin/stats?chain=ethereum&currency=USDT")).json();
    expect(pair.currencies).toEqual(["USDT"]);
    expect(pair.total).toMatchObject({ order_count: 1, total_received: "4.000000", paid_in_full_count: 0 });

    const daily = await get("/api/v1/admin/stats/daily?chain=ethereum");
    expect(daily.statusCode).toBe(200);
    expect(daily.json().filter((d: { total_received: string }) => d.total_received !== "0.000000")).toEqual([
      { date: "2026-01-13", total_received: "4.000000" },
      { date: "2026-01-15", total_received: "7.000000" },
    ]);
    expect((await get("/api/v1/admin/stats/daily?currency=USDC&chain=tron")).json()).toHaveLength(7);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });

  it.each([
    ["chain=solana", "chain"],
    ["chain=TRON", "chain"],
    ["currency=EUR", "currency"],
    ["currency=usdt", "currency"],
  ])("refuses %s with 400 INVALID_QUERY naming %s", async (query, field) => {
    for (const path of ["/api/v1/admin/stats", "/api/v1/admin/stats/daily"]) {
      const res = await get(`${path}?${query}`);
      expect(res.statusCode, path).toBe(400);
      expect(res.json().code).toBe("INVALID_QUERY");
      expect(res.json().error).toContain(field);
    }
  });
});
