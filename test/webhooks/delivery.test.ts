/**
 * Outcome webhooks end to end against a real database and real node:http receivers: the receiver
 * checks the signature over the raw bytes with node:crypto (not our verifier), every header and
 * every payload field. The retry schedule runs on a FakeClock.
 */
import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { merchants, orderEvents, orders, webhookAttempts, webhookDeliveries } from "../../src/db/schema.js";
import { errors as undiciErrors } from "undici";
import { createWebhookDeliverer, type WebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { describeError } from "../../src/webhooks/send-webhook.js";
import { recordWebhookAttempts } from "../../src/webhooks/record-webhook-attempt.js";
import { startWebhookSender } from "../../src/workers/webhook-sender.js";
import { listOrderWebhooks } from "../../src/webhooks/list-order-webhooks.js";
import {
  type Behaviour,
  confirmPayment,
  createMerchant,
  createOrder,
  createWebhookTestContext,
  type ReceivedRequest,
  type Receiver,
  startReceiver,
  type WebhookTestContext,
} from "./fixtures.js";
import { poll } from "../helpers/poll.js";

let t: WebhookTestContext;
const open: { receivers: Receiver[]; deliverers: WebhookDeliverer[] } = { receivers: [], deliverers: [] };

beforeAll(async () => {
  t = await createWebhookTestContext();
});
afterAll(async () => {
  await t.close();
});
afterEach(async () => {
  await Promise.all(open.deliverers.splice(0).map((d) => d.close()));
  await Promise.all(open.receivers.splice(0).map((r) => r.close()));
});

async function receiver(behave?: (request: ReceivedRequest, index: number) => Behaviour): Promise<Receiver> {
  const started = await startReceiver(behave);
  open.receivers.push(started);
  return started;
}

function deliverer(options: { timeoutMs?: number } = {}): WebhookDeliverer {
  const created = createWebhookDeliverer(t.ctx, options);
  open.deliverers.push(created);
  return created;
}

function hmac(secret: string, body: Buffer): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

async function deliveryRow(id: string) {
  const [row] = await t.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row;
}

async function orderRow(id: string) {
  const [row] = await t.ctx.db.select().from(orders).where(eq(orders.id, id));
  return row;
}

async function eventsOf(orderId: string) {
  return t.ctx.db
    .select()
    .from(orderEvents)
    .where(eq(orderEvents.orderId, orderId))
    .orderBy(asc(orderEvents.createdAt), asc(orderEvents.id));
}

const always =
  (status: number): (() => Behaviour) =>
  () => ({ kind: "status", status });

describe("an outcome webhook", () => {
  it.each([
    { kind: "confirmed", paid: 10_000_000n, received: "10.000000" },
    { kind: "underpaid", paid: 9_990_000n, received: "9.990000" },
    { kind: "overpaid", paid: 12_500_000n, received: "12.500000" },
  ] as const)("is signed over the raw bytes with every header and field (payment.$kind)", async (c) => {
    const hook = await receiver();
    const merchant = await createMerchant(t.ctx);
    const order = await createOrder(t.ctx, merchant, { callbackUrl: hook.url, amountExpected: 10_000_000n });
    t.clock.advance(1234);
    const outcomeAt = t.clock.now();
    const { deliveryId } = await confirmPayment(t.ctx, order.id, c.paid, {
      txHash: "ab".repeat(32),
      fromAddress: "TPayer1111111111111111111111111111",
    });
    t.clock.advanceSeconds(1);

    const reports = await deliverer().deliverDue();
    expect(reports.map((r) => r.outcome)).toEqual(["delivered"]);
    await hook.waitFor(1);
    const request = hook.requests[0] as ReceivedRequest;

    const stored = await deliveryRow(deliveryId);
    expect(request.body.equals(Buffer.from(stored?.payload ?? "", "utf8"))).toBe(true);
    expect(request.method).toBe("POST");
    expect(request.url).toBe("/hooks");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["user-agent"]).toMatch(/^Stablegate-Webhooks\/1\.0/);
    expect(request.headers["x-signature"]).toBe(hmac(merchant.secret, request.body));
    expect(request.headers["x-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(request.headers["x-idempotency-key"]).toBe(
      `evt_${order.id}_payment.${c.kind}_${outcomeAt.getTime()}`,
    );
    expect(request.headers["x-timestamp"]).toBe(String(Math.floor(t.clock.now().getTime() / 1000)));
    expect(request.headers["content-length"]).toBe(String(request.body.length));

    const payload = JSON.parse(request.body.toString("utf8")) as Record<string, unknown>;
    expect(payload).toStrictEqual({
      event: `payment.${c.kind}`,
      order_id: order.id,
      external_id: order.externalId,
      amount_expected: "10.000000",
      amount_received: c.received,
      currency: "USDT",
      chain: "tron",
      network: "devnet",
      tx_hash: "ab".repeat(32),
      from_address: "TPayer1111111111111111111111111111",
      to_address: order.address,
      status: c.kind,
      timestamp: outcomeAt.toISOString(),
    });

    expect(await deliveryRow(deliveryId)).toMatchObject({
      status: "delivered",
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      leaseOwner: null,
      deliveredAt: t.clock.now(),
    });
    expect(await orderRow(order.id)).toMatchObject({ status: "completed", completedAt: t.clock.now() });
    // Both recorded in the delivery's transaction, at the same instant.
    const events = (await eventsOf(order.id)).map((e) => e.eventType);
    expect(events.slice(-2).sort()).toEqual(["order_completed", "webhook_delivered"]);
  });

  it("keeps the idempotency key across retries, stamps each attempt and signs with the current secret", async () => {
    const hook = await receiver((_r, index) => ({ kind: "status", status: index < 2 ? 503 : 200 }));
    const merchant = await createMerchant(t.ctx, "first-secret-value");
    const order = await createOrder(t.ctx, merchant, { callbackUrl: hook.url });
    const { deliveryId } = await confirmPayment(t.ctx, order.id, order.amountExpected);
    const sender = deliverer();
    const start = Math.floor(t.clock.now().getTime() / 1000);

    expect((await sender.deliverDue()).map((r) => r.outcome)).toEqual(["retry_scheduled"]);
    t.clock.advance(1999);
    expect(await sender.deliverDue()).toEqual([]);
    t.clock.advance(1);
    expect((await sender.deliverDue()).map((r) => r.outcome)).toEqual(["retry_scheduled"]);
    // A rotated secret signs the next attempt.
    await t.ctx.db
      .update(merchants)
      .set({ webhookSecret: "second-secret-value" })
      .where(eq(merchants.id, merchant.id));
    t.clock.advanceSeconds(4);
    expect((await sender.deliverDue()).map((r) => r.outcome)).toEqual(["delivered"]);

    expect(hook.requests).toHaveLength(3);
    const keys = new Set(hook.requests.map((r) => r.headers["x-idempotency-key"]));
    expect(keys.size).toBe(1);
    expect(hook.requests.map((r) => Number(r.headers["x-timestamp"]))).toEqual([start, start + 2, start + 6]);
    const bodies = hook.requests.map((r) => r.body.toString("hex"));
    expect(new Set(bodies).size).toBe(1);
    expect(hook.requests[0]?.headers["x-signature"]).toBe(hmac("first-secret-value", hook.requests[0]!.body));
    expect(hook.requests[2]?.headers["x-signature"]).toBe(
      hmac("second-secret-value", hook.requests[2]!.body),
    );
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "delivered", attempts: 3 });
  });

  it("backs off 2, 4, 8, ... 512 s, then fails the order with webhook_failed {reason, attempt: 10}", async () => {
    const hook = await receiver(always(500));
    const merchant = await createMerchant(t.ctx);
    const order = await createOrder(t.ctx, merchant, { callbackUrl: hook.url });
    const { deliveryId } = await confirmPayment(t.ctx, order.id, order.amountExpected);
    const sender = deliverer();

    const delays: number[] = [];
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const [report] = await sender.deliverDue();
      expect(report?.result).toMatchObject({ success: false, statusCode: 500, error: null });
      const row = await deliveryRow(deliveryId);
      expect(row?.attempts).toBe(attempt);
      if (attempt === 10) break;
      expect(row?.status).toBe("pending");
      const delay = (row!.nextAttemptAt.getTime() - t.clock.now().getTime()) / 1000;
      delays.push(delay);
      // Not a moment early.
      t.clock.advance(delay * 1000 - 1);
      expect(await sender.deliverDue()).toEqual([]);
      t.clock.advance(1);
    }
    expect(delays).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 512]);

    expect(await deliveryRow(deliveryId)).toMatchObject({
      status: "failed",
      attempts: 10,
      lastError: "HTTP 500",
    });
    expect(await orderRow(order.id)).toMatchObject({ status: "callback_failed" });
    const failed = (await eventsOf(order.id)).filter((e) => e.eventType === "webhook_failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]?.payload).toMatchObject({ reason: "HTTP 500", attempt: 10 });
    expect(Number.isInteger(failed[0]?.payload.attempt)).toBe(true);

    // Nothing more is sent once the budget is spent.
    t.clock.advanceSeconds(7200);
    expect(await sender.deliverDue()).toEqual([]);
    expect(hook.requests).toHaveLength(10);
    expect(new Set(hook.requests.map((r) => r.headers["x-idempotency-key"])).size).toBe(1);
    expect(new Set(hook.requests.map((r) => r.headers["x-timestamp"])).size).toBe(10);

    const attempts = await t.ctx.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, deliveryId))
      .orderBy(asc(webhookAttempts.attempt));
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(attempts.every((a) => a.statusCode === 500 && !a.success && a.url === hook.url)).toBe(true);

    const [view] = await listOrderWebhooks(t.ctx, order.id);
    expect(view).toMatchObject({
      id: deliveryId,
      status: "failed",
      attempts: 10,
      max_attempts: 10,
      next_attempt_at: null,
      last_error: "HTTP 500",
      last_status_code: 500,
    });
    expect(view?.attempt_log).toHaveLength(10);
    expect(view?.attempt_log[0]).toStrictEqual({
      attempt: 1,
      url: hook.url,
      started_at: expect.any(String),
      duration_ms: expect.any(Number),
      status_code: 500,
      error: null,
      success: false,
    });
    expect(JSON.stringify(view)).not.toContain(merchant.secret);
    expect(JSON.stringify(view)).not.toMatch(/sha256=/);
  });

  it("gives a later outcome of the same order a new key and drops the undelivered older one", async () => {
    const hook = await receiver((_r, index) => ({ kind: "status", status: index === 0 ? 500 : 200 }));
    const merchant = await createMerchant(t.ctx);
    const order = await createOrder(t.ctx, merchant, { callbackUrl: hook.url, amountExpected: 10_000_000n });
    const first = await confirmPayment(t.ctx, order.id, 5_000_000n);
    expect(first.event).toBe("payment.underpaid");
    const sender = deliverer();
    expect((await sender.deliverDue()).map((r) => r.outcome)).toEqual(["retry_scheduled"]);

    t.clock.advanceSeconds(1);
    const second = await confirmPayment(t.ctx, order.id, 5_000_000n);
    expect(second.event).toBe("payment.confirmed");
    expect((await deliveryRow(first.deliveryId))?.status).toBe("superseded");
    t.clock.advanceSeconds(5);
    expect((await sender.deliverDue()).map((r) => r.delivery.id)).toEqual([second.deliveryId]);
    expect(await orderRow(order.id)).toMatchObject({ status: "completed" });

    // Even after completion a further transfer is a new outcome with its own key.
    t.clock.advanceSeconds(60);
    const third = await confirmPayment(t.ctx, order.id, 1_000_000n);
    expect(third.event).toBe("payment.overpaid");
    expect((await sender.deliverDue()).map((r) => r.outcome)).toEqual(["delivered"]);

    const keys = hook.requests.map((r) => r.headers["x-idempotency-key"] as string);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(new RegExp(`^evt_${order.id}_payment\\.underpaid_\\d+$`));
    expect(keys[1]).toMatch(new RegExp(`^evt_${order.id}_payment\\.confirmed_\\d+$`));
    expect(keys[2]).toMatch(new RegExp(`^evt_${order.id}_payment\\.overpaid_\\d+$`));
    expect(new Set(keys).size).toBe(3);
    expect(JSON.parse(hook.requests[2]!.body.toString())).toMatchObject({
      status: "overpaid",
      amount_received: "11.000000",
    });
    expect(await orderRow(order.id)).toMatchObject({ status: "completed" });
  });
});

describe("a failed attempt", () => {
  async function attemptAgainst(
    behave: (request: ReceivedRequest, index: number) => Behaviour,
    timeoutMs = 400,
  ) {
    const hook = await receiver(behave);
    const merchant = await createMerchant(t.ctx);
    const order = await createOrder(t.ctx, merchant, { callbackUrl: hook.url });
    const { deliveryId } = await confirmPayment(t.ctx, order.id, order.amountExpected);
    const [report] = await deliverer({ timeoutMs }).deliverDue();
    return {
      hook,
      report: report!,
      delivery: await deliveryRow(deliveryId),
      order: await orderRow(order.id),
    };
  }

  it("times out a receiver that never answers", async () => {
    const { report, delivery, order } = await attemptAgainst(() => ({ kind: "hang" }));
    expect(report.result).toMatchObject({ success: false, statusCode: null, error: "timeout after 400 ms" });
    expect(report.result.durationMs).toBeGreaterThanOrEqual(390);
    expect(report.result.durationMs).toBeLessThan(3000);
    expect(delivery).toMatchObject({ status: "pending", attempts: 1, lastError: "timeout after 400 ms" });
    expect(order?.status).toBe("confirmed");
  });

  it("times out a receiver that sends 200 headers and then stalls the body", async () => {
    const { report, order } = await attemptAgainst(() => ({ kind: "stall-body" }));
    expect(report.result).toMatchObject({ success: false, statusCode: 200, error: "timeout after 400 ms" });
    expect(order?.status).toBe("confirmed");
  });

  it("treats a redirect as a failure and does not follow it", async () => {
    const { hook, report, delivery } = await attemptAgainst((request) =>
      request.url === "/hooks"
        ? { kind: "status", status: 302, headers: { location: "/elsewhere" } }
        : { kind: "status", status: 200 },
    );
    expect(report.result).toMatchObject({ success: false, statusCode: 302, error: null });
    expect(delivery).toMatchObject({
      lastError: "HTTP 302 (redirects are not followed)",
      lastStatusCode: 302,
    });
    expect(hook.requests.map((r) => r.url)).toEqual(["/hooks"]);
  });

  it("treats 500 and a reset connection as failures", async () => {
    const server = await attemptAgainst(always(500));
    expect(server.report.result).toMatchObject({ success: false, statusCode: 500 });
    const reset = await attemptAgainst(() => ({ kind: "destroy" }));
    expect(reset.report.result).toMatchObject({
      success: false,
      statusCode: null,
      error: "connection reset",
    });
    expect(reset.delivery).toMatchObject({ status: "pending", attempts: 1, lastError: "connection reset" });
  });

  it("treats a refused connection as a failure", async () => {
    const hook = await receiver();
    const url = hook.url;
    await hook.close();
    open.receivers.splice(open.receivers.indexOf(hook), 1);
    const merchant = await createMerchant(t.ctx);
    const order = await createOrder(t.ctx, merchant, { callbackUrl: url });
    await confirmPayment(t.ctx, order.id, order.amountExpected);
    const [report] = await deliverer().deliverDue();
    expect(report?.result).toMatchObject({ success: false, error: "connection refused" });
  });

  it("accepts any 2xx and discards a large response body after 64 KB", async () => {
    const big = await attemptAgainst(() => ({
      kind: "status",
      status: 200,
      body: Buffer.alloc(1024 * 1024, 120),
    }));
    expect(big.report.result).toMatchObject({ success: true, statusCode: 200 });
    const noContent = await attemptAgainst(always(204));
    expect(noContent.report.result).toMatchObject({ success: true, statusCode: 204 });
    expect(noContent.order?.status).toBe("completed");
    const notOk = await attemptAgainst(always(300));
    expect(notOk.report.result).toMatchObject({ success: false, statusCode: 300 });
  });

  it("names a timeout the same way whether the attempt's timer or undici's own timeouts end it", () => {
    // Under CI's load undici's headers timer once fired before the attempt's own, equal, timer and the
    // attempt was logged as plain "timeout". Both now say how long was waited.
    const idle = new AbortController().signal;
    for (const error of [
      new undiciErrors.HeadersTimeoutError(),
      new undiciErrors.BodyTimeoutError(),
      new undiciErrors.ConnectTimeoutError(),
      Object.assign(new TypeError("fetch failed"), { cause: new undiciErrors.HeadersTimeoutError() }),
    ]) {
      expect(describeError(error, idle, 10_000)).toBe("timeout after 10000 ms");
    }
  });

  it("gives up on a hanging receiver after the default 10 s", { timeout: 30_000 }, async () => {
    const hook = await receiver(() => ({ kind: "hang" }));
    const merchant = await createMerchant(t.ctx);
    const order = await createOrder(t.ctx, merchant, { callbackUrl: hook.url });
    const { deliveryId } = await confirmPayment(t.ctx, order.id, order.amountExpected);
    const sender = deliverer();
    const started = Date.now();
    const [report] = await sender.deliverDue();
    const elapsed = Date.now() - started;
    expect(report?.result).toMatchObject({ success: false, error: "timeout after 10000 ms" });
    expect(elapsed).toBeGreaterThanOrEqual(9_900);
    expect(elapsed).toBeLessThan(13_000);
    expect(hook.requests).toHaveLength(1);
    const row = await deliveryRow(deliveryId);
    expect(row).toMatchObject({ status: "pending", attempts: 1 });
    const [attempt] = await t.ctx.db
      .select()
      .from(webhookAttempts)
      .where(and(eq(webhookAttempts.deliveryId, deliveryId), eq(webhookAttempts.attempt, 1)));
    expect(attempt?.durationMs).toBeGreaterThanOrEqual(9_900);
  });
});

describe("recording a batch of attempts", () => {
  it("adds each order's webhook_delivered event in the batch's statement; an attempt whose lease was taken over changes nothing but its log", async () => {
    const hook = await receiver(always(200));
    const merchant = await createMerchant(t.ctx);
    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      const order = await createOrder(t.ctx, merchant, { callbackUrl: hook.url });
      outcomes.push(await confirmPayment(t.ctx, order.id, order.amountExpected));
    }
    const sender = deliverer();
    const claimed = await sender.claim(10);
    expect(claimed.map((c) => c.id).sort()).toEqual(outcomes.map((o) => o.deliveryId).sort());
    const byId = new Map(claimed.map((c) => [c.id, c]));
    const claims = outcomes.map((o) => byId.get(o.deliveryId)!);
    // Another worker took the third delivery over (its lease expired meanwhile).
    await t.ctx.db
      .update(webhookDeliveries)
      .set({ leaseOwner: "another-worker/claim" })
      .where(eq(webhookDeliveries.id, claims[2]!.id));
    const results = await Promise.all(claims.map((claim) => sender.send(claim)));
    expect(results.map((r) => r.success)).toEqual([true, true, true]);

    const recorded = await recordWebhookAttempts(
      t.ctx,
      claims.map((claim, i) => ({ claim, result: results[i]! })),
    );
    expect(recorded).toEqual(["delivered", "delivered", "lease_lost"]);

    for (const [i, outcome] of outcomes.slice(0, 2).entries()) {
      expect(await orderRow(outcome.order.id)).toMatchObject({ status: "completed" });
      const delivered = (await eventsOf(outcome.order.id)).filter((e) => e.eventType === "webhook_delivered");
      expect(delivered.map((e) => e.payload)).toEqual([
        {
          delivery_id: claims[i]!.id,
          event: "payment.confirmed",
          idempotency_key: claims[i]!.idempotencyKey,
          attempt: 1,
          status_code: 200,
        },
      ]);
    }
    const lost = outcomes[2]!;
    expect(await orderRow(lost.order.id)).toMatchObject({ status: "confirmed" });
    expect((await eventsOf(lost.order.id)).map((e) => e.eventType)).not.toContain("webhook_delivered");
    expect(await deliveryRow(lost.deliveryId)).toMatchObject({
      status: "pending",
      attempts: 0,
      leaseOwner: "another-worker/claim",
    });
    const logged = await t.ctx.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, lost.deliveryId));
    expect(logged.map((a) => a.success)).toEqual([true]);
  });

  it("lets attempts that finish together share one transaction while they linger", async () => {
    const hook = await receiver(always(200));
    const merchant = await createMerchant(t.ctx);
    const deliveryIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const order = await createOrder(t.ctx, merchant, { callbackUrl: hook.url });
      deliveryIds.push((await confirmPayment(t.ctx, order.id, order.amountExpected)).deliveryId);
    }
    let transactions = 0;
    const db = new Proxy(t.ctx.db, {
      get(target, property, receiverObject) {
        if (property === "transaction") transactions += 1;
        const value = Reflect.get(target, property, receiverObject) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    // Long enough that all five answers are in before the batch goes, however loaded the machine.
    const sender = startWebhookSender({ ...t.ctx, db }, { recordLingerMs: 3_000, intervalMs: 20 });
    try {
      await poll(
        "every delivery delivered",
        async () => (await Promise.all(deliveryIds.map(deliveryRow))).map((row) => row?.status),
        { intervalMs: 50, until: (statuses) => statuses.every((status) => status === "delivered") },
      );
    } finally {
      await sender.stop();
    }
    expect(hook.requests).toHaveLength(5);
    expect(transactions).toBe(1);
  });
});
