import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orders, scannerCursor, settlements, transfers } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

let t: TestApp;
let cookie: string;
let alpha: TestMerchant;
let beta: TestMerchant;
const ids: Record<string, string> = {};
const times: Record<string, string> = {};

function get(url: string) {
  return t.app.inject({ method: "GET", url, headers: { cookie } });
}
const externalIds = (res: { json(): { data: { external_id: string }[] } }) =>
  res.json().data.map((o) => o.external_id);

beforeAll(async () => {
  t = await createTestApp({ env: { POOL_MIN_FREE: "10" } });
  cookie = await adminCookie(t.app);
  alpha = await addMerchant(t.ctx, "Alpha");
  beta = await addMerchant(t.ctx, "Beta");
  await fillAddressPool(t.ctx);
  // a0, b0, a1, b1, a2 created one hour apart.
  for (const [name, merchant] of [
    ["a0", alpha],
    ["b0", beta],
    ["a1", alpha],
    ["b1", beta],
    ["a2", alpha],
  ] as const) {
    const order = (
      await postOrder(t, merchant.apiKey, orderBody({ external_id: name, metadata: { n: name } }))
    ).json();
    ids[name] = order.id;
    times[name] = order.created_at;
    t.clock.advanceSeconds(3600);
  }
  await t.ctx.db.update(orders).set({ status: "expired" }).where(eq(orders.id, ids.b0!));
});
afterAll(async () => {
  await t.close();
});

describe("GET /api/v1/admin/orders", () => {
  it("needs the admin cookie", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/v1/admin/orders" });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe("ADMIN_UNAUTHORIZED");
  });

  it("lists every merchant's orders newest first in the SPEC 2.2 shape", async () => {
    const res = await get("/api/v1/admin/orders");
    expect(res.statusCode).toBe(200);
    expect(externalIds(res)).toEqual(["a2", "b1", "a1", "b0", "a0"]);
    expect(res.json().pagination).toEqual({ page: 1, limit: 20, total: 5, total_pages: 1 });
    const first = res.json().data[0];
    expect(Object.keys(first).sort()).toEqual(
      [
        "address",
        "amount_expected",
        "amount_received",
        "chain",
        "created_at",
        "currency",
        "expires_at",
        "external_id",
        "id",
        "merchant_id",
        "merchant_name",
        "status",
        "tx_hash",
      ].sort(),
    );
    expect(first).toMatchObject({
      merchant_id: alpha.id,
      merchant_name: "Alpha",
      amount_expected: "10.500000",
    });
  });

  it("pages, and filters by status, merchant and created_at range", async () => {
    const paged = await get("/api/v1/admin/orders?page=2&limit=2");
    expect(externalIds(paged)).toEqual(["a1", "b0"]);
    expect(paged.json().pagination).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3 });
    expect(externalIds(await get("/api/v1/admin/orders?status=expired"))).toEqual(["b0"]);
    expect(externalIds(await get(`/api/v1/admin/orders?merchant_id=${beta.id}`))).toEqual(["b1", "b0"]);
    const range = await get(
      `/api/v1/admin/orders?from=${encodeURIComponent(times.b0!)}&to=${encodeURIComponent(times.b1!)}`,
    );
    expect(externalIds(range)).toEqual(["b1", "a1", "b0"]);
    const equal = await get(`/api/v1/admin/orders?from=${times.a1}&to=${times.a1}`);
    expect(externalIds(equal)).toEqual(["a1"]);
    const unknownKeys = await get("/api/v1/admin/orders?sort=weird&foo=bar&limit=1");
    expect(unknownKeys.statusCode).toBe(200);
    expect(externalIds(unknownKeys)).toEqual(["a2"]);
  });

  it("filters by chain and currency, with exact totals", async () => {
    // a1 was paid on Ethereum in USDC (the stored columns the filters read).
    await t.ctx.db.update(orders).set({ chain: "ethereum", currency: "USDC" }).where(eq(orders.id, ids.a1!));
    try {
      const ethereum = await get("/api/v1/admin/orders?chain=ethereum");
      expect(externalIds(ethereum)).toEqual(["a1"]);
      expect(ethereum.json().pagination.total).toBe(1);
      expect(ethereum.json().data[0]).toMatchObject({ chain: "ethereum", currency: "USDC" });
      const tron = await get("/api/v1/admin/orders?chain=tron");
      expect(externalIds(tron)).toEqual(["a2", "b1", "b0", "a0"]);
      expect(tron.json().pagination.total).toBe(4);
      expect(externalIds(await get("/api/v1/admin/orders?currency=USDC"))).toEqual(["a1"]);
      expect(externalIds(await get("/api/v1/admin/orders?currency=USDT&chain=tron&limit=2"))).toEqual([
        "a2",
        "b1",
      ]);
      const combined = await get(`/api/v1/admin/orders?chain=tron&merchant_id=${beta.id}&status=expired`);
      expect(externalIds(combined)).toEqual(["b0"]);
      expect(combined.json().pagination.total).toBe(1);
      // A known chain this deployment does not enable: its orders (none here), not an error.
      const bsc = await get("/api/v1/admin/orders?chain=bsc");
      expect(bsc.statusCode).toBe(200);
      expect(bsc.json().pagination.total).toBe(0);
    } finally {
      await t.ctx.db.update(orders).set({ chain: "tron", currency: "USDT" }).where(eq(orders.id, ids.a1!));
    }
  });

  it("accepts the deprecated merchantId and lets merchant_id win when both are sent", async () => {
    expect(externalIds(await get(`/api/v1/admin/orders?merchantId=${alpha.id}`))).toEqual(["a2", "a1", "a0"]);
    expect(
      externalIds(await get(`/api/v1/admin/orders?merchant_id=${beta.id}&merchantId=${alpha.id}`)),
    ).toEqual(["b1", "b0"]);
    const ignoredAlias = await get(`/api/v1/admin/orders?merchant_id=${beta.id}&merchantId=junk`);
    expect(ignoredAlias.statusCode).toBe(200);
    const badSnake = await get(`/api/v1/admin/orders?merchant_id=junk&merchantId=${alpha.id}`);
    expect(badSnake.statusCode).toBe(400);
    expect(badSnake.json().error).toContain("merchant_id");
  });

  it.each([
    ["page=0", "page"],
    ["page=x", "page"],
    ["page=-1", "page"],
    ["page=1.5", "page"],
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=ten", "limit"],
    ["status=bogus", "status"],
    ["chain=solana", "chain"],
    ["chain=TRON", "chain"],
    ["currency=EUR", "currency"],
    ["currency=usdt", "currency"],
    ["merchant_id=not-a-uuid", "merchant_id"],
    ["merchantId=not-a-uuid", "merchantId"],
    ["from=not-a-date", "from"],
    ["from=2026-01-15", "from"],
    ["to=garbage", "to"],
    ["from=2026-01-16T00:00:00Z&to=2026-01-15T00:00:00Z", "from"],
  ])("refuses ?%s with 400 INVALID_QUERY naming %s", async (query, field) => {
    const res = await get(`/api/v1/admin/orders?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe("INVALID_QUERY");
    expect(res.json().error).toContain(field);
  });

  it("accepts limit 100 and page beyond the end", async () => {
    const res = await get("/api/v1/admin/orders?limit=100&page=3");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [], pagination: { page: 3, limit: 100, total: 5, total_pages: 1 } });
  });
});

describe("GET /api/v1/admin/orders/:id", () => {
  it("shows the whole order, its events and meta, with null transaction and settlement before payment", async () => {
    const res = await get(`/api/v1/admin/orders/${ids.a0}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.order).toMatchObject({
      id: ids.a0,
      external_id: "a0",
      merchant_id: alpha.id,
      merchant_name: "Alpha",
      amount_expected: "10.500000",
      amount_received: "0.000000",
      currency: "USDT",
      network: "devnet",
      status: "pending",
      tx_hash: null,
      callback_url: "https://merchant.example.com/hooks/stablegate",
      metadata: { n: "a0" },
      confirmations: 0,
      created_at: times.a0,
    });
    expect(body.events.map((e: { event_type: string }) => e.event_type)).toEqual(["order_created"]);
    expect(body.transaction).toBeNull();
    expect(body.settlement).toBeNull();
    expect(body.webhooks).toEqual([]);
    expect(body.meta).toEqual({
      network: "devnet",
      usdt_contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      tx_explorer_base_url: "http://127.0.0.1:1/wallet/gettransactionbyid?value=",
      address_explorer_base_url: "http://127.0.0.1:1/wallet/getaccount?visible=true&address=",
      sweep_enabled: true,
      sweep_mode: "burn",
      confirmations_required: 19,
    });
  });

  it("shows the first transfer as the transaction, every transfer, and the settlement", async () => {
    const order = (await t.ctx.db.select().from(orders).where(eq(orders.id, ids.a1!)))[0]!;
    const now = t.clock.now();
    const transfer = (logIndex: number, blockNumber: number, amount: bigint) => ({
      id: newId(),
      orderId: order.id,
      txHash: `${blockNumber}`.padStart(64, "a"),
      logIndex,
      blockNumber,
      blockHash: "bb".repeat(32),
      blockTimestamp: now,
      fromAddress: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
      toAddress: order.address,
      amount,
      createdAt: now,
    });
    await t.ctx.db.insert(transfers).values([transfer(0, 205, 500_000n), transfer(3, 200, 10_000_000n)]);
    await t.ctx.db
      .insert(scannerCursor)
      .values({ name: "usdt", blockNumber: 210, blockHash: "00", updatedAt: now });
    await t.ctx.db.insert(settlements).values({
      id: newId(),
      orderId: order.id,
      address: order.address,
      status: "completed",
      amount: 10_500_000n,
      feeTrx: 13_450_000n,
      sweepTxHash: "f".repeat(64),
      feeTxHash: "e".repeat(64),
      coldWalletAddress: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
      attempts: 1,
      sweptAt: now,
      createdAt: now,
      updatedAt: now,
    });
    const body = (await get(`/api/v1/admin/orders/${ids.a1}`)).json();
    expect(body.transaction).toMatchObject({
      tx_hash: "200".padStart(64, "a"),
      to_address: order.address,
      amount: "10.000000",
      block_number: 200,
      confirmations: 11,
      explorer_url: `http://127.0.0.1:1/wallet/gettransactionbyid?value=${"200".padStart(64, "a")}`,
    });
    expect(
      body.transaction.transfers.map((x: { block_number: number; confirmations: number }) => [
        x.block_number,
        x.confirmations,
      ]),
    ).toEqual([
      [200, 11],
      [205, 6],
    ]);
    expect(body.order.confirmations).toBe(11);
    expect(body.settlement).toEqual({
      status: "completed",
      sweep_tx_hash: "f".repeat(64),
      fee_tx_hash: "e".repeat(64),
      amount: "10.500000",
      fee_trx: "13.450000",
      cold_wallet_address: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
      attempts: 1,
      last_error: null,
      swept_at: now.toISOString(),
      explorer_url: `http://127.0.0.1:1/wallet/gettransactionbyid?value=${"f".repeat(64)}`,
    });
  });

  it("answers 404 order not found for an unknown and a malformed id", async () => {
    for (const id of ["3f0c9a52-3c1b-4a7e-9a53-6f1d2b7c8e90", "12345", "x'--"]) {
      const res = await get(`/api/v1/admin/orders/${encodeURIComponent(id)}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: "order not found", code: "NOT_FOUND" });
    }
  });
});
