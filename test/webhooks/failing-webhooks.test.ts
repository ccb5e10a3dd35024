/**
 * The overview's failing webhooks (GET /api/v1/admin/incidents, failing_webhooks): an order whose
 * real HTTP receiver answers 500 is listed with the receiver's answer and the next retry; an order
 * delivered to a receiver answering 200 is not; once the failing receiver accepts the retry, the
 * order leaves the list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookDeliverer, type WebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { confirmPayment, createMerchant, createOrder, type Receiver, startReceiver } from "./fixtures.js";

let t: TestApp;
let cookie: string;
let sender: WebhookDeliverer;
let failing: Receiver;
let healthy: Receiver;
let answer = 500;

beforeAll(async () => {
  t = await createTestApp();
  cookie = await adminCookie(t.app);
  sender = createWebhookDeliverer(t.ctx);
  failing = await startReceiver(() => ({ kind: "status", status: answer, body: "internal error" }));
  healthy = await startReceiver();
});
afterAll(async () => {
  await sender.close();
  await failing.close();
  await healthy.close();
  await t.close();
});

type Failing = {
  subject: string;
  subject_id: string;
  external_id: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  link: string;
};

async function failingWebhooks(): Promise<Failing[]> {
  const res = await t.app.inject({ method: "GET", url: "/api/v1/admin/incidents", headers: { cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().failing_webhooks as Failing[];
}

describe("failing webhooks on the overview", () => {
  it("lists an order whose receiver answers 500, with its answer and next retry, until a retry succeeds", async () => {
    const merchant = await createMerchant(t.ctx);
    const bad = await createOrder(t.ctx, merchant, { callbackUrl: failing.url, externalId: "FAIL-1" });
    const good = await createOrder(t.ctx, merchant, { callbackUrl: healthy.url, externalId: "OK-1" });
    await confirmPayment(t.ctx, bad.id, bad.amountExpected);
    await confirmPayment(t.ctx, good.id, good.amountExpected);
    // Enqueued but not yet tried: nothing is failing.
    expect(await failingWebhooks()).toEqual([]);

    await sender.deliverDue();
    expect(failing.requests).toHaveLength(1);
    expect(healthy.requests).toHaveLength(1);
    const listed = await failingWebhooks();
    expect(listed).toEqual([
      expect.objectContaining({
        subject: "order",
        subject_id: bad.id,
        external_id: "FAIL-1",
        status: "pending",
        attempts: 1,
        last_status_code: 500,
        link: `/admin/orders/${bad.id}`,
      }),
    ]);
    expect(listed[0]!.last_error).toEqual(expect.stringContaining("500"));
    expect(new Date(listed[0]!.next_attempt_at!).getTime()).toBeGreaterThan(t.clock.now().getTime());

    // The receiver is fixed; the scheduled retry succeeds and the order leaves the list.
    answer = 200;
    t.clock.set(new Date(listed[0]!.next_attempt_at!));
    await sender.deliverDue();
    expect(failing.requests).toHaveLength(2);
    expect(await failingWebhooks()).toEqual([]);
  });
});
