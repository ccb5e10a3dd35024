/**
 * The client against the real app over HTTP (a fresh database, the app listening on a port):
 * creation is idempotent by external_id, also when the first answer is lost on the way back; the
 * list iterator walks every page; errors carry the API's status, code and request id.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createClient,
  StablegateApiError,
  type CreatePaymentParams,
  type Payment,
  type StablegateClient,
} from "@stablegate/sdk";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";

let t: TestApp;
let baseUrl: string;
let shop: TestMerchant;
let client: StablegateClient;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  shop = await addMerchant(t.ctx, "SDK Shop");
  client = createClient({ baseUrl, apiKey: shop.apiKey, baseDelayMs: 10 });
}, 120_000);
afterAll(() => t?.close());

let counter = 0;
function params(overrides: Partial<CreatePaymentParams> = {}): CreatePaymentParams {
  return {
    external_id: `sdk-${++counter}`,
    amount: "10.5",
    currency: "USDT",
    callback_url: "https://shop.example.com/hooks/stablegate",
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<StablegateApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StablegateApiError);
  return error as StablegateApiError;
}

describe("createPayment", () => {
  it("creates an order with 6-decimal string amounts, and a repeat returns the same order", async () => {
    const input = params({ amount: "25", metadata: { cart: 7 } });
    const order = await client.createPayment(input);
    expect(order).toMatchObject({
      external_id: input.external_id,
      amount_expected: "25.000000",
      amount_received: "0.000000",
      status: "pending",
      metadata: { cart: 7 },
    });
    expect(await client.createPayment(input)).toEqual(order);
  });

  it("returns the same order when the first answer is lost and the client retries", async () => {
    // A real proxy in front of the app that drops the first answer after the app has created the order.
    let forwarded = 0;
    const proxy: Server = createServer((req, res) => {
      const n = ++forwarded;
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const upstream = httpRequest(
          `${baseUrl}${req.url}`,
          { method: req.method, headers: req.headers },
          (answer) => {
            const body: Buffer[] = [];
            answer.on("data", (c: Buffer) => body.push(c));
            answer.on("end", () => {
              if (n === 1) return req.socket.destroy();
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(Buffer.concat(body));
            });
          },
        );
        upstream.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
    try {
      const viaProxy = createClient({
        baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        apiKey: shop.apiKey,
        baseDelayMs: 10,
      });
      const input = params();
      const order = await viaProxy.createPayment(input);
      expect(forwarded).toBe(2);
      expect(order.external_id).toBe(input.external_id);
      const all = await collect(client.listPayments({ external_id: input.external_id }));
      expect(all.map((p) => p.id)).toEqual([order.id]);
    } finally {
      await new Promise((done) => proxy.close(done));
    }
  });

  it("throws EXTERNAL_ID_CONFLICT (409) for a used external_id with another amount", async () => {
    const input = params();
    await client.createPayment(input);
    const error = await rejection(client.createPayment({ ...input, amount: "11" }));
    expect(error).toMatchObject({ status: 409, code: "EXTERNAL_ID_CONFLICT", attempts: 1 });
    expect(error.requestId).toMatch(/.+/);
  });

  it("throws INVALID_BODY (400) naming the field", async () => {
    const error = await rejection(client.createPayment(params({ amount: "1.1234567" })));
    expect(error).toMatchObject({ status: 400, code: "INVALID_BODY" });
    expect(error.message).toMatch(/^body\.amount: /);
  });
});

describe("cancelPayment", () => {
  it("cancels a pending order with a reason; a second cancel throws INVALID_STATE, not retried", async () => {
    const order = await client.createPayment(params());
    const cancelled = await client.cancelPayment(order.id, { reason: "customer left" });
    expect(cancelled).toMatchObject({ id: order.id, status: "cancelled" });
    expect(cancelled.resolutions).toEqual([
      expect.objectContaining({ action: "cancel", reason: "customer left" }),
    ]);
    const error = await rejection(client.cancelPayment(order.id, { reason: "again" }));
    expect(error).toMatchObject({ status: 409, code: "INVALID_STATE", attempts: 1 });
  });
});

describe("getPayment", () => {
  it("returns the order with its events", async () => {
    const order = await client.createPayment(params());
    const read = await client.getPayment(order.id);
    expect(read).toMatchObject({ id: order.id, amount_expected: "10.500000" });
    expect(read.events.map((e) => e.event_type)).toContain("order_created");
  });

  it("throws NOT_FOUND (404) for an unknown id and for another merchant's order", async () => {
    const other = await addMerchant(t.ctx, "Other SDK Shop");
    const theirs = await createClient({ baseUrl, apiKey: other.apiKey }).createPayment(params());
    for (const id of ["0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15", theirs.id, "../merchant/me"]) {
      const error = await rejection(client.getPayment(id));
      expect(error, id).toMatchObject({ status: 404, code: "NOT_FOUND", kind: "api" });
    }
  });

  it("throws UNAUTHORIZED (401) for a wrong key, without retrying", async () => {
    const wrong = createClient({ baseUrl, apiKey: "sg_test_not-a-real-key" });
    const error = await rejection(wrong.getPayment("0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15"));
    expect(error).toMatchObject({ status: 401, code: "UNAUTHORIZED", attempts: 1 });
  });
});

async function collect(iterator: AsyncIterable<Payment>): Promise<Payment[]> {
  const out: Payment[] = [];
  for await (const payment of iterator) out.push(payment);
  return out;
}

describe("listPayments", () => {
  it("iterates every page, newest first, with the filters applied", async () => {
    const lister = await addMerchant(t.ctx, "Lister");
    const own = createClient({ baseUrl, apiKey: lister.apiKey });
    const created: Payment[] = [];
    for (let i = 0; i < 7; i++) {
      t.clock.advance(1000);
      created.push(await own.createPayment(params()));
    }
    const all = await collect(own.listPayments({ pageSize: 3 }));
    expect(all.map((p) => p.id)).toEqual(created.map((p) => p.id).reverse());
    const pending = await collect(own.listPayments({ pageSize: 2, status: "pending" }));
    expect(pending).toHaveLength(7);
    expect(await collect(own.listPayments({ status: "confirmed" }))).toEqual([]);
    const page = await own.listPaymentsPage({ pageSize: 3, page: 3 });
    expect(page.pagination).toEqual({ page: 3, limit: 3, total: 7, total_pages: 3 });
  });

  it("does not repeat an order when a new one is created while it pages", async () => {
    const lister = await addMerchant(t.ctx, "Busy lister");
    const own = createClient({ baseUrl, apiKey: lister.apiKey });
    for (let i = 0; i < 4; i++) {
      t.clock.advance(1000);
      await own.createPayment(params());
    }
    const seen: string[] = [];
    for await (const payment of own.listPayments({ pageSize: 2 })) {
      seen.push(payment.id);
      if (seen.length === 1) {
        t.clock.advance(1000);
        await own.createPayment(params());
      }
    }
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
  });

  it("throws INVALID_QUERY (400) for a bad filter", async () => {
    const error = await rejection(collect(client.listPayments({ from: "yesterday" })));
    expect(error).toMatchObject({ status: 400, code: "INVALID_QUERY" });
  });
});
