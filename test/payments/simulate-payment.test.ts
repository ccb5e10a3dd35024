import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App } from "../../src/http/app.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, type TestMerchant } from "./helpers.js";

// POST /api/v1/payments/:id/simulate: a real signed USDT transfer from the devnet faucet, picked up
// by the real scanner like a customer's payment.
let t: ChainTest;
let app: App;
let shop: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  t = await startChainTest();
  app = await buildApp(t.ctx);
  await app.ready();
  shop = await addMerchant(t.ctx, "Sandbox Shop");
  other = await addMerchant(t.ctx, "Other Shop");
}, 120_000);

afterAll(async () => {
  await app?.close();
  await t?.close();
});

async function createOrder(apiKey: string, amount = "10.5"): Promise<{ id: string; address: string }> {
  const reply = await app.inject({
    method: "POST",
    url: "/api/v1/payments",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    payload: orderBody({ amount }),
  });
  expect(reply.statusCode).toBe(201);
  return reply.json();
}

function simulate(apiKey: string | undefined, id: string, body?: unknown) {
  return app.inject({
    method: "POST",
    url: `/api/v1/payments/${id}/simulate`,
    headers: {
      ...(apiKey ? { "x-api-key": apiKey } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

async function status(
  id: string,
): Promise<{ status: string; amount_received: string; tx_hash: string | null }> {
  const reply = await app.inject({ url: `/api/v1/payments/${id}`, headers: { "x-api-key": shop.apiKey } });
  return reply.json();
}

describe("simulated payments on the devnet", () => {
  it("pays the expected amount with a real transfer that the scanner confirms", async () => {
    const order = await createOrder(shop.apiKey, "10.5");
    const reply = await simulate(shop.apiKey, order.id);
    expect(reply.statusCode).toBe(202);
    const paid = reply.json();
    expect(paid).toEqual({
      order_id: order.id,
      tx_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      amount: "10.500000",
      from_address: t.devnet.faucetAddress,
      to_address: order.address,
      network: "devnet",
    });
    // The transfer is on the chain, from the faucet to the order's address, and the scanner saw it.
    t.mine();
    await t.scanner.sync();
    expect(await t.transfersOf(order.id)).toMatchObject([
      { txHash: paid.tx_hash, fromAddress: t.devnet.faucetAddress, amount: 10_500_000n },
    ]);
    await t.finalize();
    expect(await status(order.id)).toMatchObject({
      status: "confirmed",
      amount_received: "10.500000",
      tx_hash: paid.tx_hash,
    });
  });

  it("sends another amount when asked (an underpayment here)", async () => {
    const order = await createOrder(shop.apiKey, "20");
    const reply = await simulate(shop.apiKey, order.id, { amount: "9.5" });
    expect(reply.statusCode).toBe(202);
    expect(reply.json().amount).toBe("9.500000");
    await t.finalize();
    expect(await status(order.id)).toMatchObject({ status: "underpaid", amount_received: "9.500000" });
  });

  it("answers 404 for another merchant's order and for unknown ids, 401 without a key, and sends nothing", async () => {
    const order = await createOrder(other.apiKey);
    for (const id of [order.id, "0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15", "not-a-uuid"]) {
      const reply = await simulate(shop.apiKey, id);
      expect(reply.statusCode, id).toBe(404);
      expect(reply.json()).toMatchObject({ code: "NOT_FOUND" });
    }
    expect((await simulate(undefined, order.id)).statusCode).toBe(401);
    await t.finalize();
    expect(await t.transfersOf(order.id)).toEqual([]);
  });

  it("refuses a malformed amount with 400 and sends nothing", async () => {
    const order = await createOrder(shop.apiKey);
    for (const amount of ["0", "-1", "1.1234567", 5, "ten"]) {
      const reply = await simulate(shop.apiKey, order.id, { amount });
      expect(reply.statusCode, String(amount)).toBe(400);
      expect(reply.json()).toMatchObject({
        code: "INVALID_BODY",
        error: expect.stringMatching(/^body\.amount: /),
      });
    }
    await t.finalize();
    expect(await t.transfersOf(order.id)).toEqual([]);
  });
});

describe("the dashboard's route (admin session)", () => {
  it("pays any merchant's order, and refuses without a session", async () => {
    const order = await createOrder(other.apiKey, "4");
    const url = `/api/v1/admin/orders/${order.id}/simulate`;
    expect((await app.inject({ method: "POST", url })).statusCode).toBe(401);
    const reply = await app.inject({ method: "POST", url, headers: { cookie: await adminCookie(app) } });
    expect(reply.statusCode).toBe(202);
    expect(reply.json()).toMatchObject({ order_id: order.id, amount: "4.000000", to_address: order.address });
    await t.finalize();
    expect(await t.transfersOf(order.id)).toMatchObject([
      { txHash: reply.json().tx_hash, amount: 4_000_000n },
    ]);
  });
});

describe("on any other network", () => {
  let nile: TestApp;
  beforeAll(async () => {
    nile = await createTestApp({ env: { TRON_NETWORK: "nile" } });
  }, 120_000);
  afterAll(() => nile?.close());

  it("answers 404 even for the merchant's own order", async () => {
    const merchant = await addMerchant(nile.ctx);
    const created = await nile.app.inject({
      method: "POST",
      url: "/api/v1/payments",
      headers: { "x-api-key": merchant.apiKey, "content-type": "application/json" },
      payload: orderBody(),
    });
    expect(created.statusCode).toBe(201);
    const reply = await nile.app.inject({
      method: "POST",
      url: `/api/v1/payments/${created.json().id}/simulate`,
      headers: { "x-api-key": merchant.apiKey },
    });
    expect(reply.statusCode).toBe(404);
    expect(reply.json()).toEqual({ code: "NOT_FOUND", error: expect.stringContaining("devnet") });
    const admin = await nile.app.inject({
      method: "POST",
      url: `/api/v1/admin/orders/${created.json().id}/simulate`,
      headers: { cookie: await adminCookie(nile.app) },
    });
    expect(admin.statusCode).toBe(404);
  });
});
