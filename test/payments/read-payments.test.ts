import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orders } from "../../src/db/schema.js";
import { eq } from "drizzle-orm";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "./helpers.js";

let t: TestApp;
let shop: TestMerchant;
let rival: TestMerchant;
const created: Record<string, { id: string; created_at: string }> = {};

function get(url: string, apiKey = shop.apiKey) {
  return t.app.inject({ method: "GET", url, headers: { "x-api-key": apiKey } });
}

beforeAll(async () => {
  t = await createTestApp({ env: { POOL_MIN_FREE: "30" } });
  shop = await addMerchant(t.ctx, "Book Shop");
  rival = await addMerchant(t.ctx, "Rival Shop");
  await fillAddressPool(t.ctx);
  // Five orders one minute apart: a0 (oldest) .. a4 (newest); a1 is moved to expired.
  for (let i = 0; i < 5; i++) {
    const res = await postOrder(t, shop.apiKey, orderBody({ external_id: `a${i}`, amount: `${i + 1}` }));
    created[`a${i}`] = res.json();
    t.clock.advanceSeconds(60);
  }
  await t.ctx.db.update(orders).set({ status: "expired" }).where(eq(orders.id, created.a1!.id));
  await postOrder(t, rival.apiKey, orderBody({ external_id: "r0" }));
});
afterAll(async () => {
  await t.close();
});

describe("GET /api/v1/payments/:id", () => {
  it("returns the merchant's own order with its events, oldest first", async () => {
    const res = await get(`/api/v1/payments/${created.a0!.id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      id: created.a0!.id,
      external_id: "a0",
      amount_expected: "1.000000",
      status: "pending",
    });
    expect(body.events).toEqual([
      {
        id: expect.any(String),
        event_type: "order_created",
        payload: { amount_expected: "1.000000" },
        created_at: created.a0!.created_at,
      },
    ]);
  });

  it("answers 404 for another merchant's order, an unknown id and a malformed id", async () => {
    for (const [url, key] of [
      [`/api/v1/payments/${created.a0!.id}`, rival.apiKey],
      ["/api/v1/payments/3f0c9a52-3c1b-4a7e-9a53-6f1d2b7c8e90", shop.apiKey],
      ["/api/v1/payments/not-a-uuid", shop.apiKey],
    ] as const) {
      const res = await get(url, key);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: "order not found", code: "NOT_FOUND" });
    }
  });
});

describe("GET /api/v1/payments", () => {
  it("lists only the merchant's orders, newest first, with pagination", async () => {
    const res = await get("/api/v1/payments");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((o: { external_id: string }) => o.external_id)).toEqual([
      "a4",
      "a3",
      "a2",
      "a1",
      "a0",
    ]);
    expect(body.pagination).toEqual({ page: 1, limit: 20, total: 5, total_pages: 1 });
    expect(body.data[0]).toHaveProperty("checkout_url");
  });

  it("pages with page and limit", async () => {
    const res = await get("/api/v1/payments?page=2&limit=2");
    expect(res.json().data.map((o: { external_id: string }) => o.external_id)).toEqual(["a2", "a1"]);
    expect(res.json().pagination).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3 });
    const past = await get("/api/v1/payments?page=9&limit=2");
    expect(past.json().data).toEqual([]);
  });

  it("filters by status, external_id and the created_at range", async () => {
    const byStatus = await get("/api/v1/payments?status=expired");
    expect(byStatus.json().data.map((o: { external_id: string }) => o.external_id)).toEqual(["a1"]);
    const byExternal = await get("/api/v1/payments?external_id=a3");
    expect(byExternal.json().data.map((o: { id: string }) => o.id)).toEqual([created.a3!.id]);
    const range = await get(
      `/api/v1/payments?from=${encodeURIComponent(created.a1!.created_at)}&to=${encodeURIComponent(created.a3!.created_at)}`,
    );
    expect(range.json().data.map((o: { external_id: string }) => o.external_id)).toEqual(["a3", "a2", "a1"]);
    expect(range.json().pagination.total).toBe(3);
  });

  it.each([
    ["page=0", "page"],
    ["page=x", "page"],
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["status=bogus", "status"],
    ["from=yesterday", "from"],
    ["to=2026-13-45T00:00:00Z", "to"],
    ["from=2026-01-16T00:00:00Z&to=2026-01-15T00:00:00Z", "from"],
  ])("refuses ?%s with 400 INVALID_QUERY naming %s", async (query, field) => {
    const res = await get(`/api/v1/payments?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe("INVALID_QUERY");
    expect(res.json().error).toContain(field);
  });
});
