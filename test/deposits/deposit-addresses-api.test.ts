import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { deriveAddress, STATIC_BRANCH } from "@stablegate/tron/hd";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { getAddressPoolCounts } from "../../src/wallet/get-address-pool-counts.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

let t: TestApp;
let shop: TestMerchant;
let other: TestMerchant;
let cookie: string;

const HOOK = "https://merchant.example.com/hooks/deposits";

async function post(apiKey: string, url: string, body?: unknown) {
  return t.app.inject({
    method: "POST",
    url,
    headers: { "x-api-key": apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { payload: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}
async function get(apiKey: string, url: string) {
  return t.app.inject({ method: "GET", url, headers: { "x-api-key": apiKey } });
}

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false", POOL_MIN_FREE: "5" } });
  shop = await addMerchant(t.ctx, "Game Shop");
  other = await addMerchant(t.ctx, "Exchange");
  cookie = await adminCookie(t.app);
  await fillAddressPool(t.ctx);
});
afterAll(() => t.close());

describe("POST /api/v1/deposit-addresses", () => {
  it("creates a permanent address on the static branch, and answers the same one to a repeat (200)", async () => {
    const first = await post(shop.apiKey, "/api/v1/deposit-addresses", {
      customer_ref: "player-1",
      callback_url: HOOK,
      metadata: { tier: "gold" },
      notify_detected: true,
    });
    expect(first.statusCode).toBe(201);
    const created = first.json();
    expect(created).toEqual({
      id: expect.any(String),
      customer_ref: "player-1",
      address: deriveAddress(t.ctx.config.walletXpub, 0, STATIC_BRANCH),
      status: "active",
      chain: "tron",
      currency: "USDT",
      network: "devnet",
      chains: ["tron"],
      currencies: ["USDT"],
      callback_url: HOOK,
      notify_detected: true,
      metadata: { tier: "gold" },
      deposit_count: 0,
      total_received: "0.000000",
      created_at: "2026-01-15T12:00:00.000Z",
      updated_at: "2026-01-15T12:00:00.000Z",
      disabled_at: null,
    });
    // never an order-branch address, never in the pool
    expect(created.address).not.toBe(deriveAddress(t.ctx.config.walletXpub, 0));

    const again = await post(shop.apiKey, "/api/v1/deposit-addresses", {
      customer_ref: "player-1",
      callback_url: "https://other.example.com/x",
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(created);
  });

  it("gives two merchants asking for the same customer_ref two different addresses", async () => {
    const a = await post(shop.apiKey, "/api/v1/deposit-addresses", {
      customer_ref: "shared-ref",
      callback_url: HOOK,
    });
    const b = await post(other.apiKey, "/api/v1/deposit-addresses", {
      customer_ref: "shared-ref",
      callback_url: HOOK,
    });
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(a.json().address).not.toBe(b.json().address);
    expect(a.json().id).not.toBe(b.json().id);
    // and each sees only its own
    expect((await get(other.apiKey, `/api/v1/deposit-addresses/${a.json().id}`)).statusCode).toBe(404);
    const mine = await get(shop.apiKey, `/api/v1/deposit-addresses?customer_ref=shared-ref`);
    expect(mine.json().data.map((d: { id: string }) => d.id)).toEqual([a.json().id]);
  });

  it("never hands a static address to an order, and leaves the pool counts alone", async () => {
    const before = await getAddressPoolCounts(t.ctx);
    await post(shop.apiKey, "/api/v1/deposit-addresses", { customer_ref: "pool-check", callback_url: HOOK });
    expect(await getAddressPoolCounts(t.ctx)).toEqual(before);
    const order = await postOrder(t, shop.apiKey, orderBody());
    expect(order.statusCode).toBe(201);
    const statics = await queryRows<{ address: string }>(
      t.ctx.db,
      sql`SELECT address FROM deposit_addresses`,
    );
    expect(statics.map((s) => s.address)).not.toContain(order.json().address);
    const rows = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM addresses WHERE static_index IS NOT NULL AND status <> 'static'`,
    );
    expect(rows[0]?.n).toBe(0);
  });

  it("refuses bad input with 400 and changes nothing", async () => {
    const [{ n: before } = { n: -1 }] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM deposit_addresses`,
    );
    for (const body of [
      { callback_url: HOOK },
      { customer_ref: "", callback_url: HOOK },
      { customer_ref: "x".repeat(129), callback_url: HOOK },
      { customer_ref: "a", callback_url: "ftp://x" },
      { customer_ref: "a", callback_url: "http://127.0.0.1/hook" },
      { customer_ref: "a", callback_url: HOOK, notify_detected: "yes" },
      { customer_ref: "a", callback_url: HOOK, metadata: [1] },
      { customer_ref: 5, callback_url: HOOK },
    ]) {
      const res = await post(shop.apiKey, "/api/v1/deposit-addresses", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual({
        error: expect.any(String),
        code: expect.stringMatching(/^INVALID_BODY|VALIDATION_ERROR$/),
      });
    }
    const [{ n: after } = { n: -2 }] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM deposit_addresses`,
    );
    expect(after).toBe(before);
    expect(
      (await post("sg_test_nope", "/api/v1/deposit-addresses", { customer_ref: "a", callback_url: HOOK }))
        .statusCode,
    ).toBe(401);
  });

  it("disables and enables an address, idempotently, for the merchant and the admin", async () => {
    const created = (
      await post(shop.apiKey, "/api/v1/deposit-addresses", { customer_ref: "toggle", callback_url: HOOK })
    ).json();
    const disabled = await post(shop.apiKey, `/api/v1/deposit-addresses/${created.id}/disable`);
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json()).toMatchObject({
      status: "disabled",
      disabled_at: expect.any(String),
      recent_deposits: [],
    });
    expect((await post(shop.apiKey, `/api/v1/deposit-addresses/${created.id}/disable`)).json().status).toBe(
      "disabled",
    );
    expect((await post(other.apiKey, `/api/v1/deposit-addresses/${created.id}/enable`)).statusCode).toBe(404);
    expect((await post(shop.apiKey, `/api/v1/deposit-addresses/not-a-uuid/enable`)).statusCode).toBe(404);

    const list = await t.app.inject({
      method: "GET",
      url: "/api/v1/admin/deposit-addresses?customer_ref=toggle",
      headers: { cookie },
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([
      expect.objectContaining({ id: created.id, merchant_id: shop.id, status: "disabled" }),
    ]);
    const enabled = await t.app.inject({
      method: "POST",
      url: `/api/v1/admin/deposit-addresses/${created.id}/enable`,
      headers: { cookie },
    });
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json()).toMatchObject({ status: "active", disabled_at: null, merchant_id: shop.id });
    expect((await t.app.inject({ method: "GET", url: "/api/v1/admin/deposit-addresses" })).statusCode).toBe(
      401,
    );
  });

  it("paginates the list like the order lists and filters deposits", async () => {
    const res = await get(shop.apiKey, "/api/v1/deposit-addresses?limit=2&page=1");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toHaveLength(2);
    expect(body.pagination).toEqual({ page: 1, limit: 2, total: 4, total_pages: 2 });
    expect((await get(shop.apiKey, "/api/v1/deposit-addresses?limit=0")).statusCode).toBe(400);
    const deposits = await get(shop.apiKey, "/api/v1/deposits?customer_ref=player-1");
    expect(deposits.json()).toEqual({
      data: [],
      pagination: { page: 1, limit: 20, total: 0, total_pages: 0 },
    });
    expect((await get(shop.apiKey, "/api/v1/deposits?status=lost")).statusCode).toBe(400);
    expect((await get(shop.apiKey, `/api/v1/deposits/${created0()}`)).statusCode).toBe(404);
  });
});

function created0(): string {
  return "00000000-0000-7000-8000-000000000000";
}
