import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import { orderEvents, settlements } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { createOrder } from "../../src/payments/create-order.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant } from "../payments/helpers.js";

async function seedOrder(t: TestApp, settlementStatus?: "waiting" | "active" | "completed" | "failed") {
  const merchant = await addMerchant(t.ctx);
  const { order } = await createOrder(t.ctx, merchant, {
    externalId: `sweep-${newId()}`,
    amount: "5",
    currency: "USDT",
    callbackUrl: "https://merchant.example.com/hook",
  });
  if (settlementStatus) {
    const now = t.clock.now();
    await t.ctx.db.insert(settlements).values({
      id: newId(),
      orderId: order.id,
      address: order.address,
      status: settlementStatus,
      step: "transfer",
      attempts: 5,
      lastError: "OUT_OF_ENERGY",
      createdAt: now,
      updatedAt: now,
    });
  }
  return order.id;
}

function retry(t: TestApp, cookie: string, id: string) {
  return t.app.inject({ method: "POST", url: `/api/v1/admin/orders/${id}/retry-sweep`, headers: { cookie } });
}

describe("POST /api/v1/admin/orders/:id/retry-sweep with sweeping enabled", () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { SWEEP_ENABLED: "true" } });
    cookie = await adminCookie(t.app);
  });
  afterAll(() => t.close());

  it("needs the admin cookie", async () => {
    const reply = await t.app.inject({ method: "POST", url: `/api/v1/admin/orders/${newId()}/retry-sweep` });
    expect(reply.json()).toMatchObject({ code: "ADMIN_UNAUTHORIZED" });
  });

  it("answers 404 for unknown and malformed ids", async () => {
    for (const id of [newId(), "not-a-uuid"]) {
      const reply = await retry(t, cookie, id);
      expect(reply.statusCode).toBe(404);
      expect(reply.json()).toEqual({ error: "order not found", code: "NOT_FOUND" });
    }
  });

  it("re-enqueues a failed sweep with a fresh budget and records the request", async () => {
    const id = await seedOrder(t, "failed");
    const reply = await retry(t, cookie, id);
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({ ok: true });
    const [row] = await t.ctx.db.select().from(settlements).where(eq(settlements.orderId, id));
    expect(row).toMatchObject({ status: "waiting", attempts: 0, lastError: null });
    expect(row?.nextAttemptAt?.toISOString()).toBe(t.clock.now().toISOString());
    const events = await t.ctx.db
      .select({ type: orderEvents.eventType })
      .from(orderEvents)
      .where(eq(orderEvents.orderId, id))
      .orderBy(asc(orderEvents.createdAt));
    expect(events.map((e) => e.type)).toContain("sweep_retry_requested");
    // A second retry finds nothing failed any more.
    expect((await retry(t, cookie, id)).json()).toMatchObject({ code: "INVALID_STATE" });
  });

  it("answers 409 INVALID_STATE unless the settlement failed", async () => {
    for (const status of [undefined, "waiting", "active", "completed"] as const) {
      const id = await seedOrder(t, status);
      const reply = await retry(t, cookie, id);
      expect(reply.statusCode, String(status)).toBe(409);
      expect(reply.json()).toMatchObject({ code: "INVALID_STATE" });
    }
  });
});

describe("the sweep queue in wallet status", () => {
  it("counts settlements waiting, active and failed", async () => {
    const t = await createTestApp();
    try {
      for (const status of ["waiting", "waiting", "active", "failed", "completed"] as const)
        await seedOrder(t, status);
      const cookie = await adminCookie(t.app);
      const reply = await t.app.inject({ method: "GET", url: "/api/v1/admin/wallet", headers: { cookie } });
      expect(reply.json().sweep_queue).toEqual({ waiting: 2, active: 1, failed: 1 });
    } finally {
      await t.close();
    }
  });
});

describe("retry-sweep with sweeping disabled", () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { SWEEP_ENABLED: "false" } });
    cookie = await adminCookie(t.app);
  });
  afterAll(() => t.close());

  it("answers 404 before 409 SWEEP_DISABLED, and SWEEP_DISABLED even for a failed sweep", async () => {
    expect((await retry(t, cookie, newId())).statusCode).toBe(404);
    const id = await seedOrder(t, "failed");
    const reply = await retry(t, cookie, id);
    expect(reply.statusCode).toBe(409);
    expect(reply.json()).toEqual({ error: expect.any(String), code: "SWEEP_DISABLED" });
    const [row] = await t.ctx.db.select().from(settlements).where(eq(settlements.orderId, id));
    expect(row?.status).toBe("failed");
  });
});
