import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { deriveAddress } from "@stablegate/tron/hd";
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
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false", POOL_MIN_FREE: "20" } });
  shop = await addMerchant(t.ctx, "Coffee Shop");
  await fillAddressPool(t.ctx);
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await fillAddressPool(t.ctx, { target: 20 });
});

describe("POST /api/v1/payments", () => {
  it("creates a pending order with its own receive address and an order_created event", async () => {
    const res = await postOrder(
      t,
      shop.apiKey,
      orderBody({ external_id: "first", amount: "12.5", metadata: { cart: 7 } }),
    );
    expect(res.statusCode).toBe(201);
    const order = res.json();
    expect(order).toEqual({
      id: expect.any(String),
      external_id: "first",
      address: deriveAddress(t.ctx.config.walletXpub, 0),
      amount_expected: "12.500000",
      amount_received: "0.000000",
      currency: "USDT",
      chain: "tron",
      network: "devnet",
      status: "pending",
      tx_hash: null,
      callback_url: "https://merchant.example.com/hooks/stablegate",
      checkout_url: `${t.ctx.config.publicBaseUrl}/checkout/${order.id}`,
      confirmations: 0,
      created_at: "2026-01-15T12:00:00.000Z",
      expires_at: "2026-01-15T12:30:00.000Z",
      metadata: { cart: 7 },
    });
    const events = await queryRows<{ event_type: string }>(
      t.ctx.db,
      sql`SELECT event_type FROM order_events WHERE order_id = ${order.id}`,
    );
    expect(events.map((e) => e.event_type)).toEqual(["order_created"]);
    const [row] = await queryRows<{ amount_expected: string }>(
      t.ctx.db,
      sql`SELECT amount_expected::text FROM orders WHERE id = ${order.id}`,
    );
    expect(row?.amount_expected).toBe("12500000");
  });

  it("honours expires_in", async () => {
    const res = await postOrder(t, shop.apiKey, orderBody({ expires_in: 60 }));
    expect(res.statusCode).toBe(201);
    expect(res.json().expires_at).toBe("2026-01-15T12:01:00.000Z");
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["amount 0", { amount: "0" }, "amount"],
    ["amount -1", { amount: "-1" }, "amount"],
    ["amount with 7 decimals", { amount: "1.1234567" }, "amount"],
    ["amount in exponent form", { amount: "1e3" }, "amount"],
    ["amount with a leading space", { amount: " 1" }, "amount"],
    ["amount with a leading +", { amount: "+1" }, "amount"],
    ["amount as a JSON number", { amount: 10 }, "amount"],
    ["missing amount", { amount: undefined }, "amount"],
    ["missing external_id", { external_id: undefined }, "external_id"],
    ["missing currency", { currency: undefined }, "currency"],
    ["missing callback_url", { callback_url: undefined }, "callback_url"],
    ["currency EUR", { currency: "EUR" }, "currency"],
    ["ftp callback_url", { callback_url: "ftp://merchant.example.com/cb" }, "callback_url"],
    ["garbage callback_url", { callback_url: "not a url" }, "callback_url"],
    ["loopback IP callback_url", { callback_url: "http://127.0.0.1:8080/cb" }, "callback_url"],
    ["private IP callback_url", { callback_url: "https://10.1.2.3/cb" }, "callback_url"],
    ["metadata-service callback_url", { callback_url: "http://169.254.169.254/latest" }, "callback_url"],
    ["expires_in 59", { expires_in: 59 }, "expires_in"],
    ["expires_in 86401", { expires_in: 86401 }, "expires_in"],
    ["expires_in as a string", { expires_in: "60" }, "expires_in"],
    ["expires_in fractional", { expires_in: 60.5 }, "expires_in"],
    ["metadata array", { metadata: [1, 2] }, "metadata"],
    ["metadata string", { metadata: "x" }, "metadata"],
    ["metadata over 4 KB", { metadata: { blob: "x".repeat(4100) } }, "metadata"],
    ["empty external_id", { external_id: "" }, "external_id"],
    ["external_id of 129 characters", { external_id: "e".repeat(129) }, "external_id"],
  ];

  it.each(invalid)(
    "refuses %s with 400 INVALID_BODY naming the field and changes nothing",
    async (_name, patch, field) => {
      const before = await counts();
      const res = await postOrder(t, shop.apiKey, orderBody(patch));
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe("INVALID_BODY");
      expect(res.json().error).toContain(field);
      expect(await counts()).toEqual(before);
    },
  );

  it("accepts an external_id of exactly 128 characters and metadata of exactly 4096 bytes", async () => {
    const blob = "y".repeat(4096 - JSON.stringify({ b: "" }).length);
    const res = await postOrder(
      t,
      shop.apiKey,
      orderBody({ external_id: "e".repeat(128), metadata: { b: blob } }),
    );
    expect(res.statusCode).toBe(201);
  });

  it("refuses a body that is not JSON, and a missing body", async () => {
    expect((await postOrder(t, shop.apiKey, "{nope")).json().code).toBe("INVALID_BODY");
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/payments",
      headers: { "x-api-key": shop.apiKey },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe("INVALID_BODY");
  });

  it("needs an API key", async () => {
    const res = await t.app.inject({ method: "POST", url: "/api/v1/payments", payload: orderBody() });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe("UNAUTHORIZED");
  });

  it("replays the same external_id with the same values as 200 with the same order and address", async () => {
    const body = orderBody({ external_id: "replay-1", amount: "5" });
    const first = await postOrder(t, shop.apiKey, body);
    expect(first.statusCode).toBe(201);
    const before = await counts();
    const second = await postOrder(t, shop.apiKey, { ...body, amount: "5.000000" });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(await counts()).toEqual(before);
  });

  it.each([
    ["amount", { amount: "6" }],
    ["callback_url", { callback_url: "https://other.example.com/cb" }],
  ])("answers 409 EXTERNAL_ID_CONFLICT when the %s differs", async (_field, patch) => {
    const body = orderBody();
    expect((await postOrder(t, shop.apiKey, body)).statusCode).toBe(201);
    const res = await postOrder(t, shop.apiKey, { ...body, ...patch });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe("EXTERNAL_ID_CONFLICT");
  });

  it("lets two merchants use the same external_id", async () => {
    const other = await addMerchant(t.ctx);
    const body = orderBody({ external_id: "shared-id" });
    const a = await postOrder(t, shop.apiKey, body);
    const b = await postOrder(t, other.apiKey, body);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().address).not.toBe(b.json().address);
  });

  it("creates one order when the same external_id is submitted twice at once", async () => {
    const body = orderBody({ external_id: "double-submit" });
    const before = await counts();
    const replies = await Promise.all([1, 2, 3, 4].map(() => postOrder(t, shop.apiKey, body)));
    expect(replies.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(replies.map((r) => r.json().id)).size).toBe(1);
    expect(new Set(replies.map((r) => r.json().address)).size).toBe(1);
    const after = await counts();
    expect(after?.orders).toBe((before?.orders ?? 0) + 1);
    expect(after?.allocated).toBe((before?.allocated ?? 0) + 1);
  });

  it("never gives two orders the same address, even when created concurrently past the pool's end", async () => {
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        postOrder(t, shop.apiKey, orderBody({ external_id: `burst-${i}` })),
      ),
    );
    expect(replies.every((r) => r.statusCode === 201)).toBe(true);
    expect(new Set(replies.map((r) => r.json().address)).size).toBe(40);
    const [dup] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM (SELECT address FROM orders GROUP BY address HAVING count(*) > 1) d`,
    );
    expect(dup?.n).toBe(0);
    const mismatched = await queryRows<{ id: string }>(
      t.ctx.db,
      sql`SELECT o.id FROM orders o JOIN addresses a ON a.id = o.address_id
          WHERE a.order_id IS DISTINCT FROM o.id OR a.address <> o.address OR a.status <> 'allocated'`,
    );
    expect(mismatched).toEqual([]);
  });
});

describe("SSRF guard off", () => {
  it("accepts a private callback address when WEBHOOK_ALLOW_PRIVATE_NETWORKS is on", async () => {
    const open = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
    try {
      const merchant = await addMerchant(open.ctx);
      const res = await postOrder(
        open,
        merchant.apiKey,
        orderBody({ callback_url: "http://127.0.0.1:9000/cb" }),
      );
      expect(res.statusCode).toBe(201);
    } finally {
      await open.close();
    }
  });
});
