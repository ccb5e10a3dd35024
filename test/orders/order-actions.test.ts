/**
 * The admin order read says what the operator may do with the order now and why not the rest
 * (src/orders/order-actions.ts): Cancel only while awaiting payment, Accept only on an underpaid
 * outcome, Retry webhook only while the merchant has not received the latest one, Retry sweep only
 * on a failed sweep, and every action refused to a role without its permission.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settlements, webhookDeliveries } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { createOperatorViaApi, operatorCookie } from "../helpers/operators.js";
import { confirmPayment, createMerchant, createOrder, type MerchantFixture } from "../webhooks/fixtures.js";

let t: TestApp;
let cookie: string;
let merchant: MerchantFixture;

type Action = { action: string; allowed: boolean; reason: string | null };

async function actionsOf(orderId: string, as = cookie): Promise<Record<string, Action>> {
  const reply = await t.app.inject({
    method: "GET",
    url: `/api/v1/admin/orders/${orderId}`,
    headers: { cookie: as },
  });
  expect(reply.statusCode, reply.body).toBe(200);
  const actions = reply.json().actions as Action[];
  expect(actions.map((a) => a.action)).toEqual([
    "retry_webhook",
    "retry_sweep",
    "simulate_payment",
    "cancel",
    "accept",
    "attach_transfer",
  ]);
  return Object.fromEntries(actions.map((a) => [a.action, a]));
}

const newOrder = () => createOrder(t.ctx, merchant, { callbackUrl: "https://merchant.example.com/hook" });

async function addSettlement(orderId: string, address: string, status: "waiting" | "completed" | "failed") {
  const now = t.clock.now();
  await t.ctx.db.insert(settlements).values({
    id: newId(),
    orderId,
    address,
    status,
    step: "transfer",
    attempts: 1,
    createdAt: now,
    updatedAt: now,
  });
}

beforeAll(async () => {
  t = await createTestApp({ env: { SWEEP_ENABLED: "true" } });
  cookie = await adminCookie(t.app);
  merchant = await createMerchant(t.ctx);
});
afterAll(async () => {
  await t.close();
});

describe("admin order read: actions that follow state", () => {
  it("an order awaiting payment may be cancelled; nothing to retry or accept", async () => {
    const order = await newOrder();
    const actions = await actionsOf(order.id);
    expect(actions.cancel).toEqual({ action: "cancel", allowed: true, reason: null });
    expect(actions.accept).toEqual({
      action: "accept",
      allowed: false,
      reason: "Only an underpaid outcome can be accepted.",
    });
    expect(actions.retry_webhook!.reason).toBe("No webhook yet: it is sent once the payment is confirmed.");
    expect(actions.retry_sweep!.reason).toBe(
      "Nothing to sweep: no payment was credited to this order's address.",
    );
    expect(actions.attach_transfer!.allowed).toBe(true);
  });

  it("an underpaid outcome may be accepted, not cancelled; its undelivered webhook may be retried", async () => {
    const order = await newOrder();
    const { deliveryId } = await confirmPayment(t.ctx, order.id, 9_500_000n);
    const actions = await actionsOf(order.id);
    expect(actions.accept).toEqual({ action: "accept", allowed: true, reason: null });
    expect(actions.cancel).toEqual({
      action: "cancel",
      allowed: false,
      reason: "Only an order awaiting payment can be cancelled.",
    });
    expect(actions.retry_webhook!.allowed).toBe(true);
    expect(actions.simulate_payment!.allowed).toBe(false);

    // Delivered and swept: neither retry is offered, each with its reason.
    await t.ctx.db
      .update(webhookDeliveries)
      .set({ status: "delivered", deliveredAt: t.clock.now(), lastStatusCode: 200 })
      .where(eq(webhookDeliveries.id, deliveryId));
    await addSettlement(order.id, order.address, "completed");
    const after = await actionsOf(order.id);
    expect(after.retry_webhook).toEqual({
      action: "retry_webhook",
      allowed: false,
      reason: "The merchant received the latest webhook.",
    });
    expect(after.retry_sweep).toEqual({
      action: "retry_sweep",
      allowed: false,
      reason: "Already swept to the cold wallet.",
    });
  });

  it("a failed sweep may be retried; a queued one not yet", async () => {
    const failed = await newOrder();
    await confirmPayment(t.ctx, failed.id, failed.amountExpected);
    await addSettlement(failed.id, failed.address, "failed");
    expect((await actionsOf(failed.id)).retry_sweep).toEqual({
      action: "retry_sweep",
      allowed: true,
      reason: null,
    });
    const queued = await newOrder();
    await confirmPayment(t.ctx, queued.id, queued.amountExpected);
    await addSettlement(queued.id, queued.address, "waiting");
    expect((await actionsOf(queued.id)).retry_sweep!.reason).toBe(
      "The sweep is queued; a retry is possible only once it failed.",
    );
    // Paid exactly: nothing to accept.
    expect((await actionsOf(queued.id)).accept!.allowed).toBe(false);
  });

  it("a viewer reads the same order with every action refused for its role", async () => {
    const order = await newOrder();
    const viewer = await createOperatorViaApi(t.app, cookie, { email: "viewer@example.com", role: "viewer" });
    const viewerCookie = await operatorCookie(t.app, viewer.email);
    const actions = await actionsOf(order.id, viewerCookie);
    expect(actions.cancel).toEqual({
      action: "cancel",
      allowed: false,
      reason: "Your role does not allow this.",
    });
    expect(Object.values(actions).every((a) => !a.allowed)).toBe(true);
  });
});
