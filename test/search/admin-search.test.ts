/**
 * GET /api/v1/admin/search finds an order by each of its keys (id, external id, deposit address,
 * hash of a transfer into it), a payout by id, external id and transaction hash, and a stray by its
 * hash; a key of nothing finds nothing, and an empty query is a clear 400. Runs on PGlite, and on
 * PostgreSQL with TEST_DATABASE_URL set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addresses, payoutTransactions, payouts, strayTransfers, transfers } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

let t: TestApp;
let cookie: string;
let shop: TestMerchant;
let order: { id: string; external_id: string; address: string };
let other: { id: string };
const transferHash = "ab".repeat(32);
const payoutId = newId();
const payoutHash = "cd".repeat(32);
const strayId = newId();
const strayHash = "ef".repeat(32);

const search = (q: string) =>
  t.app.inject({
    method: "GET",
    url: `/api/v1/admin/search?q=${encodeURIComponent(q)}`,
    headers: { cookie },
  });

beforeAll(async () => {
  t = await createTestApp();
  cookie = await adminCookie(t.app);
  shop = await addMerchant(t.ctx, "Search shop");
  await fillAddressPool(t.ctx);
  const created = await postOrder(t, shop.apiKey, orderBody({ external_id: "search-ext-1" }));
  expect(created.statusCode).toBe(201);
  order = created.json();
  other = (await postOrder(t, shop.apiKey, orderBody({ external_id: "search-ext-2" }))).json();
  const now = t.clock.now();
  await t.ctx.db.insert(transfers).values({
    id: newId(),
    orderId: order.id,
    txHash: transferHash,
    logIndex: 0,
    blockNumber: 100,
    blockHash: "bb".repeat(32),
    blockTimestamp: now,
    fromAddress: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
    toAddress: order.address,
    amount: 10_500_000n,
    createdAt: now,
  });
  await t.ctx.db.insert(payouts).values({
    id: payoutId,
    merchantId: shop.id,
    kind: "payout",
    status: "completed",
    externalId: "search-payout-1",
    amount: 2_000_000n,
    address: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
    createdByKind: "merchant",
    createdByLabel: "API key",
    txHash: payoutHash,
    createdAt: now,
    updatedAt: now,
  });
  await t.ctx.db.insert(payoutTransactions).values({
    txHash: payoutHash,
    payoutId,
    attempt: 1,
    signed: {},
    expirationMs: now.getTime() + 60_000,
    mode: "burn",
    state: "solid",
    createdAt: now,
  });
  const [address] = await t.ctx.db
    .insert(addresses)
    .values({ derivationIndex: 9_999, address: "TStraySearchAddress000000000000001", createdAt: now })
    .returning();
  await t.ctx.db.insert(strayTransfers).values({
    id: strayId,
    addressId: address!.id,
    txHash: strayHash,
    logIndex: 0,
    blockNumber: 101,
    blockHash: "bb".repeat(32),
    blockTimestamp: now,
    fromAddress: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
    toAddress: address!.address,
    amount: 1_000_000n,
    status: "confirmed",
    createdAt: now,
  });
});
afterAll(async () => {
  await t.close();
});

async function hits(q: string) {
  const res = await search(q);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: { kind: string; id: string; matched: string; link: string }[] }).data;
}

describe("GET /api/v1/admin/search", () => {
  it("finds an order by its id, external id, deposit address and the hash of a transfer into it", async () => {
    for (const [q, matched] of [
      [order.id, "id"],
      [order.id.toUpperCase(), "id"],
      ["search-ext-1", "external_id"],
      [order.address, "address"],
      [transferHash, "tx_hash"],
      [`0x${transferHash.toUpperCase()}`, "tx_hash"],
    ] as const) {
      const found = await hits(q);
      expect(found, q).toEqual([
        expect.objectContaining({ kind: "order", id: order.id, matched, link: `/admin/orders/${order.id}` }),
      ]);
    }
    const byOther = await hits("search-ext-2");
    expect(byOther.map((hit) => hit.id)).toEqual([other.id]);
  });

  it("finds a payout by id, external id and transaction hash, and a stray by its hash", async () => {
    for (const [q, matched] of [
      [payoutId, "id"],
      ["search-payout-1", "external_id"],
      [payoutHash, "tx_hash"],
    ] as const) {
      expect(await hits(q), q).toEqual([
        expect.objectContaining({
          kind: "payout",
          id: payoutId,
          matched,
          link: `/admin/payouts/${payoutId}`,
        }),
      ]);
    }
    expect(await hits(strayHash)).toEqual([
      expect.objectContaining({
        kind: "stray_transfer",
        id: strayId,
        matched: "tx_hash",
        status: "unresolved",
        amount: "1.000000",
        link: `/admin/stray-transfers/${strayId}`,
      }),
    ]);
  });

  it("finds nothing for a key of nothing, and refuses an empty query", async () => {
    expect(await hits("no-such-thing")).toEqual([]);
    expect(await hits("11".repeat(32))).toEqual([]);
    expect(await hits("' OR 1=1 --")).toEqual([]);
    const empty = await search("   ");
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ code: "INVALID_QUERY" });
    const missing = await t.app.inject({ method: "GET", url: "/api/v1/admin/search", headers: { cookie } });
    expect(missing.statusCode).toBe(400);
    const anonymous = await t.app.inject({ method: "GET", url: "/api/v1/admin/search?q=x" });
    expect(anonymous.statusCode).toBe(401);
  });
});
