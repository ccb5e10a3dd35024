/**
 * POST /api/v1/admin/orders/:id/retry-webhook through the real app and the real login flow, with
 * real receivers and the real deliverer.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { orderEvents, orders, webhookDeliveries } from "../../src/db/schema.js";
import { createWebhookDeliverer, type WebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { listOrderWebhooks } from "../../src/webhooks/list-order-webhooks.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import {
  type Behaviour,
  confirmPayment,
  createMerchant,
  createOrder,
  moveOrderTo,
  type Receiver,
  startReceiver,
} from "./fixtures.js";

async function login(t: TestApp): Promise<string> {
  const response = await t.app.inject({
    method: "POST",
    url: "/api/v1/admin/auth/login",
    payload: { password: TEST_ADMIN_PASSWORD },
  });
  expect(response.statusCode).toBe(200);
  const cookie = response.cookies.find((c) => c.name === "admin_token");
  expect(cookie).toBeDefined();
  return `admin_token=${cookie!.value}`;
}

let t: TestApp;
let cookie: string;
let sender: WebhookDeliverer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await createTestApp();
  cookie = await login(t);
  sender = createWebhookDeliverer(t.ctx);
});
afterAll(async () => {
  await sender.close();
  await t.close();
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(behave?: (index: number) => Behaviour): Promise<Receiver> {
  const started = await startReceiver(behave && ((_r, index) => behave(index)));
  receivers.push(started);
  return started;
}

function retry(id: string, body?: unknown, headers: Record<string, string> = { cookie }) {
  return t.app.inject({
    method: "POST",
    url: `/api/v1/admin/orders/${id}/retry-webhook`,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

async function orderRow(id: string) {
  const [row] = await t.ctx.db.select().from(orders).where(eq(orders.id, id));
  return row!;
}

async function eventsOf(orderId: string, type: string) {
  return t.ctx.db
    .select()
    .from(orderEvents)
    .where(and(eq(orderEvents.orderId, orderId), eq(orderEvents.eventType, type)))
    .orderBy(asc(orderEvents.createdAt));
}

/** Runs every due attempt, moving the fake clock to each next attempt, until nothing is pending. */
async function drain(orderId: string): Promise<void> {
  for (let i = 0; i < 20; i += 1) {
    await sender.deliverDue();
    const pending = await t.ctx.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.orderId, orderId), eq(webhookDeliveries.status, "pending")));
    if (pending.length === 0) return;
    t.clock.set(pending[0]!.nextAttemptAt);
  }
  throw new Error("deliveries did not settle");
}

/** An order whose 10 attempts all failed: callback_failed. */
async function failedOrder(hook: Receiver) {
  const merchant = await createMerchant(t.ctx);
  const order = await createOrder(t.ctx, merchant, { callbackUrl: hook.url });
  const outcome = await confirmPayment(t.ctx, order.id, order.amountExpected);
  await drain(order.id);
  expect((await orderRow(order.id)).status).toBe("callback_failed");
  return { merchant, order, outcome };
}

describe("retry-webhook on an eligible order", () => {
  it("re-sends the latest outcome with the same key and bytes and a fresh budget of 10", async () => {
    let healthy = false;
    const hook = await receiver(() => ({ kind: "status", status: healthy ? 200 : 500 }));
    const { order } = await failedOrder(hook);
    expect(hook.requests).toHaveLength(10);
    healthy = true;

    const response = await retry(order.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    const [requested] = await eventsOf(order.id, "webhook_retry_requested");
    expect(requested?.payload).toMatchObject({ override: false });

    const views = await listOrderWebhooks(t.ctx, order.id);
    expect(views.map((v) => v.status)).toEqual(["failed", "pending"]);
    expect(views[1]).toMatchObject({
      attempts: 0,
      max_attempts: 10,
      idempotency_key: views[0]!.idempotency_key,
    });

    await drain(order.id);
    expect(hook.requests).toHaveLength(11);
    const [first, last] = [hook.requests[0]!, hook.requests[10]!];
    expect(last.headers["x-idempotency-key"]).toBe(first.headers["x-idempotency-key"]);
    expect(last.body.equals(first.body)).toBe(true);
    expect(await orderRow(order.id)).toMatchObject({ status: "completed" });
    expect(await eventsOf(order.id, "order_completed")).toHaveLength(1);
  });

  it("sends one run to the override URL without storing it on the order", async () => {
    const original = await receiver(() => ({ kind: "status", status: 500 }));
    const override = await receiver();
    const { order } = await failedOrder(original);

    const response = await retry(order.id, { callback_url: override.url });
    expect(response.statusCode).toBe(200);
    expect((await orderRow(order.id)).callbackUrl).toBe(original.url);
    const [requested] = await eventsOf(order.id, "webhook_retry_requested");
    expect(requested?.payload).toMatchObject({ override: true });

    await drain(order.id);
    expect(override.requests).toHaveLength(1);
    expect(original.requests).toHaveLength(10);
    expect(await orderRow(order.id)).toMatchObject({ status: "completed", callbackUrl: original.url });

    // The next run without an override goes back to the order's own URL.
    expect((await retry(order.id)).statusCode).toBe(200);
    await sender.deliverDue();
    expect(original.requests).toHaveLength(11);
    expect(override.requests).toHaveLength(1);
  });

  it("accepts the camelCase alias, and snake_case wins when both are sent", async () => {
    const original = await receiver(() => ({ kind: "status", status: 500 }));
    const snake = await receiver();
    const camel = await receiver();
    const { order } = await failedOrder(original);

    expect((await retry(order.id, { callbackUrl: camel.url })).statusCode).toBe(200);
    await sender.deliverDue();
    expect(camel.requests).toHaveLength(1);

    expect((await retry(order.id, { callback_url: snake.url, callbackUrl: camel.url })).statusCode).toBe(200);
    await sender.deliverDue();
    expect(snake.requests).toHaveLength(1);
    expect(camel.requests).toHaveLength(1);
  });

  it("is allowed on confirmed and completed orders and replaces a pending run", async () => {
    const hook = await receiver((index) => ({ kind: "status", status: index === 0 ? 500 : 200 }));
    const merchant = await createMerchant(t.ctx);
    const order = await createOrder(t.ctx, merchant, { callbackUrl: hook.url });
    const outcome = await confirmPayment(t.ctx, order.id, order.amountExpected);
    await sender.deliverDue(); // attempt 1 fails; the run waits 2 s for attempt 2

    expect((await retry(order.id)).statusCode).toBe(200);
    const [old] = await t.ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, outcome.deliveryId));
    expect(old?.status).toBe("superseded");
    expect((await sender.deliverDue()).map((r) => r.outcome)).toEqual(["delivered"]);
    expect((await orderRow(order.id)).status).toBe("completed");

    // completed is eligible too; a run that then fails leaves the order completed.
    expect((await retry(order.id)).statusCode).toBe(200);
    const views = await listOrderWebhooks(t.ctx, order.id);
    expect(views.map((v) => v.status)).toEqual(["superseded", "delivered", "pending"]);
  });

  it("records a new webhook_failed incident when a retry of a callback_failed order fails again", async () => {
    const hook = await receiver(() => ({ kind: "status", status: 502 }));
    const { order } = await failedOrder(hook);
    expect((await retry(order.id)).statusCode).toBe(200);
    await drain(order.id);
    expect(hook.requests).toHaveLength(20);
    const failed = await eventsOf(order.id, "webhook_failed");
    expect(failed.map((e) => e.payload)).toEqual([
      expect.objectContaining({ reason: "HTTP 502", attempt: 10 }),
      expect.objectContaining({ reason: "HTTP 502", attempt: 10 }),
    ]);
    expect((await orderRow(order.id)).status).toBe("callback_failed");
  });
});

describe("retry-webhook refusals", () => {
  it("answers 409 INVALID_STATE for pending, detected and expired orders", async () => {
    const merchant = await createMerchant(t.ctx);
    const pending = await createOrder(t.ctx, merchant, { callbackUrl: "https://merchant.example.com/hook" });
    const detected = await createOrder(t.ctx, merchant, { callbackUrl: "https://merchant.example.com/hook" });
    await moveOrderTo(t.ctx, detected.id, "detected");
    const expired = await createOrder(t.ctx, merchant, { callbackUrl: "https://merchant.example.com/hook" });
    await moveOrderTo(t.ctx, expired.id, "expired");
    for (const order of [pending, detected, expired]) {
      const response = await retry(order.id);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ code: "INVALID_STATE" });
      expect(await eventsOf(order.id, "webhook_retry_requested")).toHaveLength(0);
    }
  });

  it("answers 404 NOT_FOUND for an unknown and a malformed id", async () => {
    for (const id of [randomUUID(), "not-a-uuid", "1"]) {
      const response = await retry(id);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: "order not found", code: "NOT_FOUND" });
    }
  });

  it("answers 400 VALIDATION_ERROR for a bad override, before looking at the order", async () => {
    const merchant = await createMerchant(t.ctx);
    const pending = await createOrder(t.ctx, merchant, { callbackUrl: "https://merchant.example.com/hook" });
    const bad: unknown[] = [
      { callback_url: 42 },
      { callback_url: "" },
      { callback_url: "not a url" },
      { callback_url: "ftp://merchant.example.com/hook" },
      { callbackUrl: "javascript:alert(1)" },
      { callback_url: null },
      ["https://merchant.example.com/hook"],
      "https://merchant.example.com/hook",
    ];
    for (const body of bad) {
      // Bad body + unknown id, + malformed id, + ineligible order: the body check wins every time.
      for (const id of [randomUUID(), "nope", pending.id]) {
        const response = await retry(id, body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json()).toMatchObject({ code: "VALIDATION_ERROR" });
      }
    }
    // Without the bad body the same ids answer 404 then 409: existence before state.
    expect((await retry(randomUUID())).statusCode).toBe(404);
    expect((await retry(pending.id, {})).statusCode).toBe(409);
  });

  it("requires the admin cookie", async () => {
    const response = await retry(randomUUID(), undefined, {});
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: "ADMIN_UNAUTHORIZED" });
  });
});

describe("retry-webhook with the SSRF guard on", () => {
  let guarded: TestApp;
  let guardedCookie: string;

  beforeAll(async () => {
    guarded = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" } });
    guardedCookie = await login(guarded);
  });
  afterAll(async () => {
    await guarded.close();
  });

  it("refuses private IP literal overrides with 400 VALIDATION_ERROR", async () => {
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "http://10.0.0.1/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/hook",
      "http://[::ffff:127.0.0.1]/hook",
    ]) {
      const response = await guarded.app.inject({
        method: "POST",
        url: `/api/v1/admin/orders/${randomUUID()}/retry-webhook`,
        headers: { cookie: guardedCookie, "content-type": "application/json" },
        payload: JSON.stringify({ callback_url: url }),
      });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ code: "VALIDATION_ERROR" });
    }
  });
});
