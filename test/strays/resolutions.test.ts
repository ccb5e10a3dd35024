/**
 * Cancel and accept (DESIGN.md 13) over the merchant and admin APIs, on orders paid over the devnet
 * and credited by the real scanner: a cancelled order's late payment, a cancel racing a payment in
 * the same block, and refusals that change nothing.
 */
import { eq, sql } from "drizzle-orm";
import { verifyWebhook } from "@stablegate/sdk";
import { queryRows } from "../../src/db/query-rows.js";
import { signWebhookBody } from "../../src/webhooks/signature.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries } from "../../src/db/schema.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";
import { createOrder } from "../../src/payments/create-order.js";
import { payAndConfirm, startStrayTest, USDT, type StrayTest } from "./helpers.js";

let s: StrayTest;
let shop: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  s = await startStrayTest();
  shop = await addMerchant(s.t.ctx);
  other = await addMerchant(s.t.ctx);
}, 120_000);
afterAll(async () => {
  await s.close();
});

const admin = (url: string, payload?: Record<string, unknown>) =>
  s.app.inject({ method: "POST", url, headers: { cookie: s.cookie }, ...(payload ? { payload } : {}) });
const merchantPost = (apiKey: string, url: string, payload?: Record<string, unknown>) =>
  s.app.inject({
    method: "POST",
    url,
    headers: { "x-api-key": apiKey },
    ...(payload ? { payload } : {}),
  });

async function shopOrder(amount: string, merchant = shop) {
  const { order } = await createOrder(s.t.ctx, merchant, {
    externalId: `res-${Math.random().toString(36).slice(2)}`,
    amount,
    currency: "USDT",
    callbackUrl: "https://merchant.example.com/hooks",
  });
  return order;
}

/** Everything a refused request must leave as it was. */
async function snapshot(orderId: string) {
  const { t } = s;
  return {
    order: await t.orderRow(orderId),
    events: await t.events(orderId),
    deliveries: (await t.deliveries(orderId)).map((d) => [d.id, d.status]),
  };
}

describe("cancel", () => {
  it("cancels a pending order without a webhook; a payment that still arrives is a late payment", async () => {
    const { t } = s;
    const order = await shopOrder("5");
    const noReason = await merchantPost(shop.apiKey, `/api/v1/payments/${order.id}/cancel`, {});
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().code).toBe("INVALID_BODY");
    const foreign = await merchantPost(other.apiKey, `/api/v1/payments/${order.id}/cancel`, { reason: "x" });
    expect(foreign.statusCode).toBe(404);
    expect((await t.orderRow(order.id)).status).toBe("pending");

    const cancel = await merchantPost(shop.apiKey, `/api/v1/payments/${order.id}/cancel`, {
      reason: "customer changed their mind",
    });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json()).toMatchObject({
      id: order.id,
      status: "cancelled",
      resolutions: [
        {
          action: "cancel",
          reason: "customer changed their mind",
          actor: { kind: "merchant", id: shop.id },
        },
      ],
    });
    expect(await t.deliveries(order.id)).toEqual([]);
    const before = await snapshot(order.id);
    const again = await merchantPost(shop.apiKey, `/api/v1/payments/${order.id}/cancel`, { reason: "again" });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe("INVALID_STATE");
    expect(await snapshot(order.id)).toEqual(before);

    await payAndConfirm(t, order.address, 5n * USDT);
    expect((await t.orderRow(order.id)).status).toBe("confirmed");
    expect(await t.events(order.id)).toEqual([
      "order_created",
      "order_cancelled",
      "late_payment",
      "payment_confirmed",
    ]);
  });

  it("has an admin twin that refuses an order with a payment", async () => {
    const { t } = s;
    const order = await shopOrder("2");
    const cancel = await admin(`/api/v1/admin/orders/${order.id}/cancel`, { reason: "duplicate order" });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json()).toMatchObject({
      order: { status: "cancelled" },
      resolutions: [{ action: "cancel", actor: { kind: "operator" }, reason: "duplicate order" }],
      actions: expect.arrayContaining([
        expect.objectContaining({ action: "cancel", allowed: false }),
        expect.objectContaining({ action: "accept", allowed: false }),
      ]),
    });
    const paid = await shopOrder("2");
    await payAndConfirm(t, paid.address, 2n * USDT);
    const before = await snapshot(paid.id);
    const refused = await admin(`/api/v1/admin/orders/${paid.id}/cancel`, { reason: "too late" });
    expect(refused.statusCode).toBe(409);
    expect(await snapshot(paid.id)).toEqual(before);
  });

  it("racing a payment in the same block ends detected or cancelled-then-late, never both, no payment lost", async () => {
    const { t } = s;
    const orders = await Promise.all([1, 2, 3, 4, 5, 6].map(() => shopOrder("3")));
    for (const o of orders) await t.pay(o.address, 3n * USDT);
    t.mine(1); // every payment in one block
    const cancels = orders.map((o, i) =>
      // Half start before the scan, half after it has begun: both orders of events happen.
      new Promise((r) => setTimeout(r, i % 2 === 0 ? 0 : 5)).then(() =>
        merchantPost(shop.apiKey, `/api/v1/payments/${o.id}/cancel`, { reason: "race" }),
      ),
    );
    const [replies] = await Promise.all([Promise.all(cancels), t.scanner.sync()]);
    await t.finalize();
    for (const [i, o] of orders.entries()) {
      const reply = replies[i] as Awaited<(typeof cancels)[number]>;
      const events = await t.events(o.id);
      expect(await t.transfersOf(o.id)).toHaveLength(1);
      expect((await t.orderRow(o.id)).status).toBe("confirmed");
      if (reply.statusCode === 200) {
        expect(events).toEqual(["order_created", "order_cancelled", "late_payment", "payment_confirmed"]);
      } else {
        expect(reply.statusCode).toBe(409);
        expect(events).toEqual(["order_created", "payment_detected", "payment_confirmed"]);
      }
    }
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});

describe("accept", () => {
  it("makes an underpaid outcome confirmed with a new manual payment.confirmed webhook, once", async () => {
    const { t } = s;
    const order = await shopOrder("10");
    await payAndConfirm(t, order.address, 9_990_000n);
    expect((await t.orderRow(order.id)).status).toBe("underpaid");
    const [underpaidHook] = await t.deliveries(order.id);

    const noReason = await admin(`/api/v1/admin/orders/${order.id}/resolve`, { action: "accept" });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().code).toBe("INVALID_BODY");
    const accept = await admin(`/api/v1/admin/orders/${order.id}/resolve`, {
      action: "accept",
      reason: "1 cent short, bank fee",
    });
    expect(accept.statusCode).toBe(200);
    expect(accept.json()).toMatchObject({
      order: { status: "confirmed", amount_received: "9.990000", amount_expected: "10.000000" },
      resolutions: [{ action: "accept", reason: "1 cent short, bank fee", actor: { kind: "operator" } }],
      actions: expect.arrayContaining([expect.objectContaining({ action: "accept", allowed: false })]),
    });
    const events = await t.events(order.id);
    expect(events.slice(-1)).toEqual(["manually_resolved"]);
    const hooks = await t.ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.orderId, order.id))
      .orderBy(webhookDeliveries.createdAt);
    expect(hooks).toHaveLength(2);
    const manual = hooks[1];
    expect(manual?.event).toBe("payment.confirmed");
    expect(manual?.idempotencyKey).not.toBe(underpaidHook?.idempotencyKey);
    expect(manual?.idempotencyKey).toMatch(new RegExp(`^evt_${order.id}_payment\\.confirmed_\\d+$`));
    expect(JSON.parse(manual?.payload ?? "{}")).toMatchObject({
      event: "payment.confirmed",
      status: "confirmed",
      amount_received: "9.990000",
      resolution: "manual",
    });
    // A merchant's verifier (the SDK's) reads the added field; the signature covers it.
    const secret = "whsec-test-secret";
    const verified = verifyWebhook(
      manual?.payload ?? "",
      { "x-signature": signWebhookBody(secret, manual?.payload ?? ""), "x-timestamp": "0" },
      secret,
      { toleranceSeconds: 0 },
    );
    expect(verified.ok && verified.payload.resolution).toBe("manual");
    // The audit log holds the act with its actor and reason, in the same transaction.
    const [audit] = await queryRows<{ action: string; reason: string; actor_kind: string }>(
      t.ctx.db,
      sql`SELECT action, reason, actor_kind FROM audit_log WHERE target_id = ${order.id}`,
    );
    expect(audit).toEqual({
      action: "order.resolve",
      reason: "1 cent short, bank fee",
      actor_kind: "operator",
    });
    // The merchant's own read shows it too.
    const read = await s.app.inject({
      method: "GET",
      url: `/api/v1/payments/${order.id}`,
      headers: { "x-api-key": shop.apiKey },
    });
    expect(read.json().resolutions).toEqual([expect.objectContaining({ action: "accept" })]);

    // Accepting twice is refused and changes nothing.
    const before = await snapshot(order.id);
    const twice = await admin(`/api/v1/admin/orders/${order.id}/resolve`, {
      action: "accept",
      reason: "again",
    });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe("INVALID_STATE");
    expect(await snapshot(order.id)).toEqual(before);
  });

  it("refuses a confirmed order and an unknown action, changing nothing", async () => {
    const { t } = s;
    const order = await shopOrder("4");
    await payAndConfirm(t, order.address, 4n * USDT);
    const before = await snapshot(order.id);
    const refused = await admin(`/api/v1/admin/orders/${order.id}/resolve`, {
      action: "accept",
      reason: "why",
    });
    expect(refused.statusCode).toBe(409);
    const bogus = await admin(`/api/v1/admin/orders/${order.id}/resolve`, {
      action: "refund",
      reason: "why",
    });
    expect(bogus.statusCode).toBe(400);
    expect(await snapshot(order.id)).toEqual(before);
    const missing = await admin(`/api/v1/admin/orders/00000000-0000-4000-8000-000000000000/resolve`, {
      action: "accept",
      reason: "why",
    });
    expect(missing.statusCode).toBe(404);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});
