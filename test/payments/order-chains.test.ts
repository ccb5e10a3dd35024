/**
 * Orders on an enabled chain (DESIGN.md 16): `chain` and `currency` on creation, a pair the
 * deployment does not enable refused with UNSUPPORTED_CURRENCY and nothing written, `chain` on the
 * order, its checkout status and its webhook payload. Runs on PGlite, and on PostgreSQL when
 * TEST_DATABASE_URL is set.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { buildWebhookPayload } from "../../src/webhooks/enqueue-webhook.js";
import { orders } from "../../src/db/schema.js";
import { eq } from "drizzle-orm";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "./helpers.js";

let t: TestApp;
let shop: TestMerchant;

async function counts() {
  const [row] = await queryRows<{ orders: number; events: number; allocated: number }>(
    t.ctx.db,
    sql`SELECT (SELECT count(*) FROM orders)::int AS orders, (SELECT count(*) FROM order_events)::int AS events,
      (SELECT count(*) FROM addresses WHERE status = 'allocated')::int AS allocated`,
  );
  return row;
}

beforeAll(async () => {
  t = await createTestApp({ env: { POOL_MIN_FREE: "10" } });
  shop = await addMerchant(t.ctx, "Chain Shop");
  await fillAddressPool(t.ctx);
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await fillAddressPool(t.ctx, { target: 10 });
});

describe("POST /api/v1/payments with chain and currency", () => {
  it("creates a TRON USDT order when the request names the chain, and stores the chain", async () => {
    const res = await postOrder(t, shop.apiKey, orderBody({ chain: "tron", currency: "USDT" }));
    expect(res.statusCode).toBe(201);
    const order = res.json();
    expect(order.chain).toBe("tron");
    expect(order.currency).toBe("USDT");
    expect(order.network).toBe("devnet");
    const [row] = await queryRows<{ chain: string; currency: string; network: string }>(
      t.ctx.db,
      sql`SELECT chain, currency, network FROM orders WHERE id = ${order.id}::uuid`,
    );
    expect(row).toEqual({ chain: "tron", currency: "USDT", network: "devnet" });
  });

  it("puts an order that names no chain on the primary chain", async () => {
    const res = await postOrder(t, shop.apiKey, orderBody());
    expect(res.statusCode).toBe(201);
    expect(res.json().chain).toBe(t.ctx.chains.primary.id);
    expect(res.json().chain).toBe("tron");
  });

  const unsupported: [string, Record<string, unknown>, RegExp][] = [
    ["USDC on tron (no USDC token there)", { chain: "tron", currency: "USDC" }, /USDC.*tron/],
    ["USDC without a chain (the primary takes USDT only)", { currency: "USDC" }, /USDC.*tron/],
    ["ethereum USDC, not enabled here", { chain: "ethereum", currency: "USDC" }, /ethereum/],
    ["ethereum USDT, not enabled here", { chain: "ethereum", currency: "USDT" }, /ethereum/],
    ["an unknown chain", { chain: "solana", currency: "USDT" }, /solana/],
  ];

  it.each(unsupported)(
    "refuses %s with 400 UNSUPPORTED_CURRENCY and changes nothing",
    async (_n, patch, says) => {
      const before = await counts();
      const res = await postOrder(t, shop.apiKey, orderBody(patch));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: expect.stringMatching(says), code: "UNSUPPORTED_CURRENCY" });
      expect(res.json().error).toMatch(/enabled: tron|accepted: USDT/);
      expect(await counts()).toEqual(before);
    },
  );

  it("refuses a chain that is not a string, and an unknown currency, as INVALID_BODY", async () => {
    for (const patch of [{ chain: 7 }, { chain: "" }, { currency: "EUR" }]) {
      const res = await postOrder(t, shop.apiKey, orderBody(patch));
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe("INVALID_BODY");
    }
  });

  it("is idempotent on external_id with the chain: same chain replays, another chain conflicts", async () => {
    const body = orderBody({ external_id: "chain-replay" });
    const first = await postOrder(t, shop.apiKey, body);
    expect(first.statusCode).toBe(201);
    const named = await postOrder(t, shop.apiKey, { ...body, chain: "tron" });
    expect(named.statusCode).toBe(200);
    expect(named.json()).toEqual(first.json());

    // An order of this external_id on another chain (as a deployment with ethereum enabled would
    // have made it): the same request now names a different chain.
    await t.ctx.db.update(orders).set({ chain: "ethereum" }).where(eq(orders.id, first.json().id));
    const before = await counts();
    const conflict = await postOrder(t, shop.apiKey, body);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().code).toBe("EXTERNAL_ID_CONFLICT");
    expect(conflict.json().error).toContain("chain");
    expect(await counts()).toEqual(before);
  });
});

describe("chain on the order's reads", () => {
  it("is on GET /payments/:id, the list, the checkout status and the webhook payload", async () => {
    const created = (await postOrder(t, shop.apiKey, orderBody({ chain: "tron" }))).json();
    const headers = { "x-api-key": shop.apiKey };
    const one = await t.app.inject({ method: "GET", url: `/api/v1/payments/${created.id}`, headers });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: created.id, chain: "tron", network: "devnet" });

    const list = await t.app.inject({ method: "GET", url: "/api/v1/payments?limit=100", headers });
    const listed = list.json().data.find((o: { id: string }) => o.id === created.id);
    expect(listed).toMatchObject({ chain: "tron", network: "devnet" });

    const checkout = await t.app.inject({ method: "GET", url: `/api/v1/checkout/${created.id}/status` });
    expect(checkout.statusCode).toBe(200);
    expect(checkout.json()).toMatchObject({ chain: "tron", currency: "USDT", network: "devnet" });

    const [row] = await t.ctx.db.select().from(orders).where(eq(orders.id, created.id));
    const payload = buildWebhookPayload(
      { ...row!, status: "confirmed", amountReceived: row!.amountExpected },
      "payment.confirmed",
      t.ctx.clock.now(),
    );
    expect(payload).toMatchObject({ chain: "tron", currency: "USDT", network: "devnet" });
  });
});

describe("migrations 0021, 0033 and 0038", () => {
  it("gives orders, transfers, strays and deposits a chain (default tron), and transfers, strays and deposits a remainder", async () => {
    const columns = await queryRows<{ table_name: string; column_name: string; column_default: string }>(
      t.ctx.db,
      sql`SELECT table_name, column_name, column_default FROM information_schema.columns
        WHERE column_name IN ('chain', 'remainder') AND table_schema = current_schema()
          AND table_name IN ('orders', 'transfers', 'stray_transfers', 'deposits')
        ORDER BY table_name, column_name`,
    );
    expect(columns.map((c) => `${c.table_name}.${c.column_name}`)).toEqual([
      "deposits.chain",
      "deposits.remainder",
      "orders.chain",
      "stray_transfers.chain",
      "stray_transfers.remainder",
      "transfers.chain",
      "transfers.remainder",
    ]);
    for (const c of columns) expect(c.column_default).toMatch(c.column_name === "chain" ? /'tron'/ : /^0/);
  });
});
