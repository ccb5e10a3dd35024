import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { orders, scannerCursor, transfers } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { transitionOrder } from "../../src/orders/transitions.js";
import { expireOrders } from "../../src/payments/expire-orders.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "./helpers.js";

let t: TestApp;
let shop: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ env: { POOL_MIN_FREE: "20" } });
  shop = await addMerchant(t.ctx, "Tea House");
  await fillAddressPool(t.ctx);
});
afterAll(async () => {
  await t.close();
});

async function loadOrder(id: string) {
  const [order] = await t.ctx.db.select().from(orders).where(eq(orders.id, id));
  if (!order) throw new Error("order missing");
  return order;
}

async function eventTypes(id: string): Promise<string[]> {
  const rows = await queryRows<{ event_type: string }>(
    t.ctx.db,
    sql`SELECT event_type FROM order_events WHERE order_id = ${id} ORDER BY created_at, id`,
  );
  return rows.map((row) => row.event_type);
}

describe("order expiry", () => {
  it("expires an unpaid order once expires_at passes, records order_expired and sends no webhook", async () => {
    const { id } = (await postOrder(t, shop.apiKey, orderBody({ expires_in: 600 }))).json();
    t.clock.advanceSeconds(599);
    expect((await expireOrders(t.ctx)).expired).toBe(0);
    expect((await loadOrder(id)).status).toBe("pending");
    t.clock.advanceSeconds(1);
    expect((await expireOrders(t.ctx)).expired).toBe(1);
    expect((await loadOrder(id)).status).toBe("expired");
    expect(await eventTypes(id)).toEqual(["order_created", "order_expired"]);
    const deliveries = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM webhook_deliveries`,
    );
    expect(deliveries[0]?.n).toBe(0);
    expect((await expireOrders(t.ctx)).expired).toBe(0);
    expect(await eventTypes(id)).toEqual(["order_created", "order_expired"]);
  });

  it("never expires a detected order", async () => {
    const { id } = (await postOrder(t, shop.apiKey, orderBody({ expires_in: 60 }))).json();
    await transitionOrder(t.ctx, t.ctx.db, {
      order: await loadOrder(id),
      to: "detected",
      event: "payment_detected",
    });
    t.clock.advanceSeconds(3600);
    await expireOrders(t.ctx);
    expect((await loadOrder(id)).status).toBe("detected");
  });

  it("expires each order exactly once when two expirers run at the same time, in batches", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await postOrder(t, shop.apiKey, orderBody({ expires_in: 60 }))).json().id);
    t.clock.advanceSeconds(61);
    const results = await Promise.all([
      expireOrders(t.ctx, { batchSize: 3 }),
      expireOrders(t.ctx, { batchSize: 3 }),
    ]);
    let total = results.reduce((sum, r) => sum + r.expired, 0);
    while (true) {
      const more = await expireOrders(t.ctx, { batchSize: 3 });
      total += more.expired;
      if (more.expired === 0) break;
    }
    expect(total).toBe(7);
    for (const id of ids) expect(await eventTypes(id)).toEqual(["order_created", "order_expired"]);
  });
});

describe("GET /api/v1/checkout/:id/status", () => {
  it("shows the payer what to pay and nothing private", async () => {
    const order = (
      await postOrder(
        t,
        shop.apiKey,
        orderBody({ amount: "42", metadata: { secret_note: "vip" }, external_id: "checkout-1" }),
      )
    ).json();
    const res = await t.app.inject({ method: "GET", url: `/api/v1/checkout/${order.id}/status` });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.json()).toEqual({
      id: order.id,
      status: "pending",
      merchant_name: "Tea House",
      amount_expected: "42.000000",
      amount_received: "0.000000",
      currency: "USDT",
      chain: "tron",
      chain_name: "TRON",
      token_standard: "TRC20",
      network: "devnet",
      address: order.address,
      // On TRON the payer's wallet scans the bare address, as before chains.
      payment_uri: order.address,
      tx_hash: null,
      confirmations: 0,
      confirmations_required: 19,
      expires_at: order.expires_at,
      explorer_url: `${t.ctx.config.explorer.addressBaseUrl}${order.address}`,
      outcome: null,
    });
    for (const hidden of [
      "callback_url",
      "merchant.example.com",
      "metadata",
      "secret_note",
      "external_id",
      "checkout-1",
      "whsec",
    ]) {
      expect(res.body).not.toContain(hidden);
    }
  });

  it("counts confirmations of the first transfer from the scanner cursor and links the transaction", async () => {
    const order = (await postOrder(t, shop.apiKey, orderBody({ amount: "5" }))).json();
    const now = t.clock.now();
    await t.ctx.db.insert(transfers).values({
      id: newId(),
      orderId: order.id,
      txHash: "ab".repeat(32),
      logIndex: 0,
      blockNumber: 100,
      blockHash: "cd".repeat(32),
      blockTimestamp: now,
      fromAddress: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
      toAddress: order.address,
      amount: 5_000_000n,
      createdAt: now,
    });
    await transitionOrder(t.ctx, t.ctx.db, {
      order: await loadOrder(order.id),
      to: "detected",
      event: "payment_detected",
      patch: { txHash: "ab".repeat(32) },
    });
    const status = async () =>
      (await t.app.inject({ method: "GET", url: `/api/v1/checkout/${order.id}/status` })).json();
    expect((await status()).confirmations).toBe(0);
    await t.ctx.db
      .insert(scannerCursor)
      .values({ name: "usdt", blockNumber: 99, blockHash: "00", updatedAt: now });
    expect((await status()).confirmations).toBe(0);
    await t.ctx.db.update(scannerCursor).set({ blockNumber: 104 }).where(eq(scannerCursor.name, "usdt"));
    const body = await status();
    expect(body.confirmations).toBe(5);
    expect(body.status).toBe("detected");
    expect(body.explorer_url).toBe(`${t.ctx.config.explorer.txBaseUrl}${"ab".repeat(32)}`);
    const merchantView = await t.app.inject({
      method: "GET",
      url: `/api/v1/payments/${order.id}`,
      headers: { "x-api-key": shop.apiKey },
    });
    expect(merchantView.json().confirmations).toBe(5);
  });

  it("answers 404 for an unknown and a malformed id alike", async () => {
    for (const id of ["3f0c9a52-3c1b-4a7e-9a53-6f1d2b7c8e90", "nope", "1%20OR%201=1"]) {
      const res = await t.app.inject({ method: "GET", url: `/api/v1/checkout/${id}/status` });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: "order not found", code: "NOT_FOUND" });
    }
  });
});
