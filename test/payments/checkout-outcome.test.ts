/**
 * The checkout status's `outcome`: what the payment came to, whatever the webhook did. An exact
 * payment is paid, more is overpaid, less is underpaid, and stays underpaid once the order is
 * completed (the webhook delivered); once an operator accepts the short payment it is accepted,
 * which the checkout page shows as settled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transitionOrder } from "../../src/orders/transitions.js";
import { lockOrder } from "../../src/orders/lock-order.js";
import { viewOf } from "../../web/src/checkout/view.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { confirmPayment, createMerchant, createOrder } from "../webhooks/fixtures.js";

let t: TestApp;
let cookie: string;

beforeAll(async () => {
  t = await createTestApp();
  cookie = await adminCookie(t.app);
});
afterAll(async () => {
  await t.close();
});

async function status(id: string) {
  const res = await t.app.inject({ method: "GET", url: `/api/v1/checkout/${id}/status` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe("GET /api/v1/checkout/:id/status outcome", () => {
  it("is null without a payment, then paid, overpaid or underpaid by the amounts", async () => {
    const merchant = await createMerchant(t.ctx);
    const url = "https://merchant.example.com/hook";
    const exact = await createOrder(t.ctx, merchant, { callbackUrl: url, amountExpected: 10_000_000n });
    const over = await createOrder(t.ctx, merchant, { callbackUrl: url, amountExpected: 10_000_000n });
    expect((await status(exact.id)).outcome).toBeNull();
    await confirmPayment(t.ctx, exact.id, 10_000_000n);
    await confirmPayment(t.ctx, over.id, 12_000_000n);
    expect((await status(exact.id)).outcome).toBe("paid");
    expect((await status(over.id)).outcome).toBe("overpaid");
  });

  it("keeps an underpaid order underpaid once completed, and settles it once accepted", async () => {
    const merchant = await createMerchant(t.ctx);
    const short = await createOrder(t.ctx, merchant, {
      callbackUrl: "https://merchant.example.com/hook",
      amountExpected: 10_000_000n,
    });
    await confirmPayment(t.ctx, short.id, 9_500_000n);
    // The merchant received the underpaid webhook: the order is completed, still short.
    await t.ctx.db.transaction(async (tx) => {
      const order = await lockOrder(tx, short.id);
      await transitionOrder(t.ctx, tx, { order, to: "completed", event: "order_completed" });
    });
    const completed = await status(short.id);
    expect(completed).toMatchObject({ status: "completed", outcome: "underpaid" });
    expect(viewOf(completed).detail).toContain("0.5 USDT is missing");

    const accept = await t.app.inject({
      method: "POST",
      url: `/api/v1/admin/orders/${short.id}/resolve`,
      headers: { cookie },
      payload: { action: "accept", reason: "customer agreed by phone" },
    });
    expect(accept.statusCode, accept.body).toBe(200);
    const accepted = await status(short.id);
    expect(accepted).toMatchObject({ status: "confirmed", amount_received: "9.500000", outcome: "accepted" });
    const view = viewOf(accepted);
    expect(view.phase).toBe("paid");
    expect(view.detail).toContain("accepted by");
    expect(view.detail).not.toContain("missing");
  });
});
