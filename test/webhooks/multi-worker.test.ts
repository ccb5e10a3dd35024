/**
 * Two workers drain 1,000 due deliveries together: every event reaches the receiver at least once
 * (counted at the receiver by idempotency key) and every order completes. On PostgreSQL the two
 * workers are real processes; on PGlite (one process only) two sender instances in this process.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { orders, webhookDeliveries } from "../../src/db/schema.js";
import { startWebhookSender, type WebhookSender } from "../../src/workers/webhook-sender.js";
import {
  createConfirmedOrders,
  createMerchant,
  createWebhookTestContext,
  type Receiver,
  startReceiver,
  type WebhookTestContext,
} from "./fixtures.js";
import { spawnWorker, type WorkerProcess } from "./workers.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { poll } from "../helpers/poll.js";

const TOTAL = 1000;
let t: WebhookTestContext;
let hook: Receiver;

beforeAll(async () => {
  t = await createWebhookTestContext({}, { poolSize: 16 });
  hook = await startReceiver();
}, 120_000);
afterAll(async () => {
  await hook.close();
  await t.close();
});

describe("two workers", () => {
  it(`deliver every one of ${TOTAL} due webhooks at least once`, { timeout: 300_000 }, async () => {
    t.clock.set(new Date());
    const merchant = await createMerchant(t.ctx);
    const orderIds = await createConfirmedOrders(t.ctx, merchant, hook.url, TOTAL);

    const processes: WorkerProcess[] = [];
    const senders: WebhookSender[] = [];
    try {
      if (t.testDb.url) {
        for (const id of ["worker-a", "worker-b"]) {
          processes.push(await spawnWorker(t.testDb.url, { WORKER_ID: id, CONCURRENCY: "16" }));
        }
      } else {
        for (const id of ["worker-a", "worker-b"]) {
          senders.push(startWebhookSender(t.ctx, { workerId: id, concurrency: 16, intervalMs: 20 }));
        }
      }
      await hook.waitFor(TOTAL, 240_000);
      // The last attempts are recorded just after the receiver answers.
      await poll(
        "no delivery left pending",
        async () => {
          const [pending] = await t.ctx.db
            .select({ n: count() })
            .from(webhookDeliveries)
            .where(eq(webhookDeliveries.status, "pending"));
          return Number(pending?.n);
        },
        { timeoutMs: 10_000, until: (pending) => pending === 0 },
      );
    } finally {
      await Promise.all([...processes.map((p) => p.stop()), ...senders.map((s) => s.stop())]);
    }

    const keys = new Set(hook.requests.map((r) => r.headers["x-idempotency-key"]));
    expect(keys.size).toBe(TOTAL);
    for (const id of orderIds.slice(0, 5)) {
      expect([...keys].some((key) => String(key).startsWith(`evt_${id}_payment.confirmed_`))).toBe(true);
    }
    const statuses = await t.ctx.db
      .select({ status: webhookDeliveries.status, n: count() })
      .from(webhookDeliveries)
      .groupBy(webhookDeliveries.status);
    expect(statuses.map((s) => ({ status: s.status, n: Number(s.n) }))).toEqual([
      { status: "delivered", n: TOTAL },
    ]);
    const completed = await t.ctx.db
      .select({ n: count() })
      .from(orders)
      .where(eq(orders.status, "completed"));
    expect(Number(completed[0]?.n)).toBe(TOTAL);
    // Two workers completing orders at once left the admin rollups equal to a recount.
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});
