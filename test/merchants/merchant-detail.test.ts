import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OrderStatus, orderEvents, orders } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { parseAmount } from "../../src/money.js";
import { adminCookie, createMerchantViaApi, type CreatedMerchantReply } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
let cookie: string;
let shop: CreatedMerchantReply;
let other: CreatedMerchantReply;
let empty: CreatedMerchantReply;
const base = new Date("2026-01-10T00:00:00.000Z").getTime();
const minutes = (n: number) => new Date(base + n * 60_000);

async function insertOrder(
  merchantId: string,
  n: number,
  status: OrderStatus,
  received: string,
): Promise<{ id: string; externalId: string; createdAt: Date }> {
  const id = newId();
  const createdAt = minutes(n);
  await t.ctx.db.insert(orders).values({
    id,
    merchantId,
    externalId: `order-${n}`,
    amountExpected: parseAmount("10") as bigint,
    amountReceived: parseAmount(received) as bigint,
    network: "devnet",
    status,
    address: `TAddress${n}`,
    txHash: status === "pending" || status === "expired" ? null : `${n}`.padStart(64, "a"),
    callbackUrl: "https://shop.example/hook",
    expiresAt: new Date(createdAt.getTime() + 30 * 60_000),
    createdAt,
    updatedAt: createdAt,
  });
  return { id, externalId: `order-${n}`, createdAt };
}

async function insertEvent(orderId: string, eventType: string, n: number, payload: Record<string, unknown>) {
  const id = newId();
  await t.ctx.db.insert(orderEvents).values({ id, orderId, eventType, payload, createdAt: minutes(n) });
  return id;
}

function detail(id: string) {
  return t.app.inject({ method: "GET", url: `/api/v1/admin/merchants/${id}`, headers: { cookie } });
}

// Shop: 12 orders. completed 4, callback_failed 2, confirmed 1, underpaid 1 (outcomes: 8);
// pending 2 + detected 1 (active: 3); expired 1.
const SHOP_ORDERS: [OrderStatus, string][] = [
  ["completed", "10"],
  ["completed", "10"],
  ["completed", "10.5"],
  ["completed", "9.999999"],
  ["callback_failed", "5"],
  ["callback_failed", "5"],
  ["confirmed", "3.000001"],
  ["underpaid", "1"],
  ["pending", "0"],
  ["pending", "0"],
  ["detected", "2"], // seen but not confirmed: not received yet
  ["expired", "0"],
];
const shopOrders: { id: string; externalId: string; createdAt: Date }[] = [];
const shopIncidentIds: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  t.clock.set(minutes(-100));
  cookie = await adminCookie(t.app);
  shop = await createMerchantViaApi(t.app, cookie, { name: "Detail Shop", webhook_secret: "whsec-detail" });
  t.clock.advanceSeconds(1);
  other = await createMerchantViaApi(t.app, cookie, { name: "Other Shop", webhook_secret: "whsec-other" });
  t.clock.advanceSeconds(1);
  empty = await createMerchantViaApi(t.app, cookie, { name: "Empty Shop", webhook_secret: "whsec-empty" });

  for (const [i, [status, received]] of SHOP_ORDERS.entries()) {
    shopOrders.push(await insertOrder(shop.id, i, status, received));
  }
  // 12 incidents on the shop's orders (7 webhook_failed, 5 sweep_failed) and events that are not incidents.
  for (let i = 0; i < 12; i++) {
    const order = shopOrders[i % shopOrders.length] as (typeof shopOrders)[number];
    const type = i < 7 ? "webhook_failed" : "sweep_failed";
    const payload =
      type === "webhook_failed" ? { reason: "HTTP 500", attempt: 10 } : { reason: "x", step: "fee" };
    shopIncidentIds.push(await insertEvent(order.id, type, 100 + i, payload));
    await insertEvent(order.id, "order_created", 200 + i, {});
  }
  // The other merchant's order and incident never count for the shop, even when newer.
  const foreign = await insertOrder(other.id, 500, "callback_failed", "7");
  await insertEvent(foreign.id, "webhook_failed", 600, { reason: "timeout", attempt: 10 });
});
afterAll(async () => {
  await t.close();
});

describe("GET /api/v1/admin/merchants/:id", () => {
  it("answers the merchant fields and its stats flat on one object", async () => {
    const reply = await detail(shop.id);
    expect(reply.statusCode).toBe(200);
    const body = reply.json();
    expect(body).toMatchObject({
      id: shop.id,
      name: "Detail Shop",
      api_key_prefix: shop.api_key_prefix,
      is_active: true,
      created_at: shop.created_at,
      order_count: 12,
      completed_count: 4,
      callback_failed_count: 2,
      active_order_count: 3,
      total_received: "54.500000",
      last_order_at: minutes(11).toISOString(),
      success_rate: "33.33",
      incident_count: 12,
    });
    expect(body).not.toHaveProperty("webhook_secret");
    expect(body).not.toHaveProperty("api_key");
    expect(body).not.toHaveProperty("api_key_hash");
  });

  it("lists the 10 most recent orders, newest first, in the admin order shape", async () => {
    const body = (await detail(shop.id)).json();
    expect(body.recent_orders).toHaveLength(10);
    expect(body.recent_orders.map((o: { external_id: string }) => o.external_id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `order-${11 - i}`),
    );
    const newest = body.recent_orders[0];
    expect(Object.keys(newest).sort()).toEqual(
      [
        "address",
        "amount_expected",
        "amount_received",
        "chain",
        "created_at",
        "currency",
        "expires_at",
        "external_id",
        "id",
        "merchant_id",
        "merchant_name",
        "status",
        "tx_hash",
      ].sort(),
    );
    expect(newest).toEqual({
      id: shopOrders[11]?.id,
      external_id: "order-11",
      merchant_id: shop.id,
      merchant_name: "Detail Shop",
      address: "TAddress11",
      amount_expected: "10.000000",
      amount_received: "0.000000",
      chain: "tron",
      currency: "USDT",
      status: "expired",
      tx_hash: null,
      created_at: minutes(11).toISOString(),
      expires_at: minutes(41).toISOString(),
    });
    const detected = body.recent_orders.find((o: { status: string }) => o.status === "detected");
    expect(detected.amount_received).toBe("2.000000");
    expect(detected.tx_hash).toMatch(/^a+10$/);
  });

  it("lists the 10 most recent incidents of its orders, newest first, in the incident shape", async () => {
    const body = (await detail(shop.id)).json();
    expect(body.recent_incidents).toHaveLength(10);
    expect(body.recent_incidents.map((i: { id: string }) => i.id)).toEqual(
      shopIncidentIds.slice(2).reverse(),
    );
    const newest = body.recent_incidents[0];
    const order = shopOrders[11 % shopOrders.length];
    expect(newest).toEqual({
      id: shopIncidentIds[11],
      created_at: minutes(111).toISOString(),
      event_type: "sweep_failed",
      payload: { reason: "x", step: "fee" },
      order_id: order?.id,
      order_status: "expired",
      external_id: order?.externalId,
      merchant_name: "Detail Shop",
    });
    const webhookFailed = body.recent_incidents.find(
      (i: { event_type: string }) => i.event_type === "webhook_failed",
    );
    expect(webhookFailed.payload).toEqual({ reason: "HTTP 500", attempt: 10 });
    expect(body.recent_incidents.every((i: { event_type: string }) => i.event_type !== "order_created")).toBe(
      true,
    );
  });

  it("keeps other merchants' orders and incidents apart", async () => {
    const body = (await detail(other.id)).json();
    expect(body).toMatchObject({
      order_count: 1,
      completed_count: 0,
      callback_failed_count: 1,
      active_order_count: 0,
      total_received: "7.000000",
      success_rate: "0.00",
      incident_count: 1,
    });
    expect(body.recent_orders).toHaveLength(1);
    expect(body.recent_incidents[0].merchant_name).toBe("Other Shop");
  });

  it("answers zeros, 0.00 and a null last_order_at for a merchant without orders", async () => {
    const body = (await detail(empty.id)).json();
    expect(body).toMatchObject({
      order_count: 0,
      completed_count: 0,
      callback_failed_count: 0,
      active_order_count: 0,
      total_received: "0.000000",
      last_order_at: null,
      success_rate: "0.00",
      incident_count: 0,
      balance: { available: "0.000000", reserved: "0.000000" },
      recent_orders: [],
      recent_incidents: [],
    });
  });

  it("sums amounts beyond 2^53 micro-units exactly", async () => {
    t.clock.advanceSeconds(1);
    const whale = await createMerchantViaApi(t.app, cookie, { name: "Whale", webhook_secret: "whsec-whale" });
    await insertOrder(whale.id, 900, "completed", "12345678901234567.890123");
    await insertOrder(whale.id, 901, "overpaid", "0.000001");
    await insertOrder(whale.id, 902, "completed", "1");
    const body = (await detail(whale.id)).json();
    expect(body.total_received).toBe("12345678901234568.890124");
    expect(body.success_rate).toBe("66.67");
  });

  it.each([
    ["an unknown id", "3f1d2c4b-0000-4000-8000-000000000000"],
    ["a malformed id", "not-a-uuid"],
    ["a uuid with trailing text", "3f1d2c4b-0000-4000-8000-000000000000x"],
  ])("answers 404 NOT_FOUND for %s", async (_label, id) => {
    const reply = await detail(id);
    expect(reply.statusCode).toBe(404);
    expect(reply.json()).toEqual({ error: "merchant not found", code: "NOT_FOUND" });
  });
});

describe("GET /api/v1/admin/merchants", () => {
  it("lists every merchant newest first with its order count and without secrets", async () => {
    const reply = await t.app.inject({ method: "GET", url: "/api/v1/admin/merchants", headers: { cookie } });
    expect(reply.statusCode).toBe(200);
    const { data } = reply.json();
    const names = data.map((m: { name: string }) => m.name);
    expect(names.slice(-3)).toEqual(["Empty Shop", "Other Shop", "Detail Shop"]);
    const byName = Object.fromEntries(data.map((m: { name: string }) => [m.name, m]));
    expect(byName["Detail Shop"]).toEqual({
      id: shop.id,
      name: "Detail Shop",
      api_key_prefix: shop.api_key_prefix,
      is_active: true,
      created_at: shop.created_at,
      order_count: 12,
    });
    expect(byName["Other Shop"].order_count).toBe(1);
    expect(byName["Empty Shop"].order_count).toBe(0);
    for (const entry of data) {
      expect(Object.keys(entry).sort()).toEqual(
        ["api_key_prefix", "created_at", "id", "is_active", "name", "order_count"].sort(),
      );
    }
    expect(reply.body).not.toContain("whsec-");
  });
});
