/**
 * Regression tests for the hostile inputs an outside fuzz run found: each answers a 4xx
 * in the { error, code } shape with the right code, names the field, and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { STATUS_BY_CODE } from "../../src/errors.js";
import { adminCookie, createMerchantViaApi } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
let cookie: string;
let apiKey: string;

beforeAll(async () => {
  await ensureWebBuild();
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" } });
  cookie = await adminCookie(t.app);
  apiKey = (await createMerchantViaApi(t.app, cookie)).api_key;
});
afterAll(async () => {
  await t.close();
});

async function orderCount(): Promise<number> {
  const result = (await t.ctx.db.execute(sql`SELECT count(*)::int AS n FROM orders`)) as unknown as {
    rows: Array<{ n: number }>;
  };
  return result.rows[0]?.n ?? -1;
}

function expectShaped(reply: { statusCode: number; body: string }, status: number, code: string): string {
  expect(reply.statusCode, reply.body).toBe(status);
  const body = JSON.parse(reply.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["code", "error"]);
  expect(body.code).toBe(code);
  expect(STATUS_BY_CODE[code as keyof typeof STATUS_BY_CODE]).toBe(status);
  return body.error as string;
}

const validOrder = (overrides: Record<string, unknown>) => ({
  external_id: `ord-${Math.random().toString(36).slice(2)}`,
  amount: "10.5",
  currency: "USDT",
  callback_url: "https://shop.example.com/hooks",
  ...overrides,
});

async function createPaymentRaw(payload: string) {
  return t.app.inject({
    method: "POST",
    url: "/api/v1/payments",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    payload,
  });
}

describe("NUL and lone surrogates anywhere in a body", () => {
  // Written as JSON text, so the escapes reach the parser exactly as a client would send them.
  const cases: Array<[string, string, string]> = [
    ["a NUL in external_id", '"external_id":"nul\\u0000x"', "body.external_id"],
    ["a lone low surrogate in external_id", '"external_id":"BoaOCL\\udfff"', "body.external_id"],
    [
      "a lone high surrogate in callback_url",
      '"callback_url":"https://a.example.com/\\ud800"',
      "body.callback_url",
    ],
    ["a NUL in a metadata key", '"metadata":{"k\\u0000":1}', "body.metadata"],
    ["a NUL in a deep metadata value", '"metadata":{"a":{"b":[{"c":"x\\u0000"}]}}', "body.metadata.a.b[0].c"],
    ["a surrogate in a deep metadata key", '"metadata":{"a":{"\\udc00z":true}}', "body.metadata.a"],
  ];

  it.each(cases)(
    "refuses %s with 400 INVALID_BODY naming the field, creating nothing",
    async (_name, field, path) => {
      const before = await orderCount();
      const base = JSON.stringify(validOrder({})).slice(1, -1);
      // The hostile field replaces its valid counterpart (JSON keeps the last duplicate key).
      const payload = `{${base},${field}}`;
      const reply = await createPaymentRaw(payload);
      const message = expectShaped(reply, 400, "INVALID_BODY");
      expect(message.startsWith(path), message).toBe(true);
      expect(message).toMatch(/NUL or unpaired surrogate/);
      expect(await orderCount()).toBe(before);
    },
  );

  it("refuses them in admin bodies too (merchant name)", async () => {
    const reply = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/merchants",
      headers: { cookie, "content-type": "application/json" },
      payload: '{"name":"shop\\u0000","webhook_secret":"0123456789abcdef"}',
    });
    expect(expectShaped(reply, 400, "INVALID_BODY")).toMatch(/^body\.name: /);
  });

  it("answers VALIDATION_ERROR on retry-webhook, whose body errors SPEC.md 4.4 names so", async () => {
    const reply = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/orders/00000000-0000-4000-8000-000000000000/retry-webhook",
      headers: { cookie, "content-type": "application/json" },
      payload: '{"callback_url":"https://a.example.com/\\u0000"}',
    });
    expect(expectShaped(reply, 400, "VALIDATION_ERROR")).toMatch(/^body\.callback_url: /);
  });

  it("refuses metadata nested deeper than 32 levels before it reaches PostgreSQL", async () => {
    const before = await orderCount();
    const deep = `${'{"a":'.repeat(40)}1${"}".repeat(40)}`;
    const reply = await createPaymentRaw(
      `{${JSON.stringify(validOrder({})).slice(1, -1)},"metadata":${deep}}`,
    );
    expect(expectShaped(reply, 400, "INVALID_BODY")).toMatch(/nested deeper than 32/);
    expect(await orderCount()).toBe(before);
  });

  it("still accepts astral characters (well-formed surrogate pairs) and other Unicode", async () => {
    const reply = await createPaymentRaw(
      JSON.stringify(validOrder({ external_id: "order-😀-ü-中", metadata: { клиент: "😀" } })),
    );
    expect(reply.statusCode, reply.body).toBe(201);
  });
});

describe("query parameters", () => {
  const merchantGet = (query: string) =>
    t.app.inject({ method: "GET", url: `/api/v1/payments?${query}`, headers: { "x-api-key": apiKey } });
  const adminGet = (query: string) =>
    t.app.inject({ method: "GET", url: `/api/v1/admin/orders?${query}`, headers: { cookie } });

  it("refuses a NUL or an encoded lone surrogate in a query value with 400 INVALID_QUERY", async () => {
    for (const query of ["external_id=%00", "external_id=a%00b", "status=%00"]) {
      expect(expectShaped(await merchantGet(query), 400, "INVALID_QUERY")).toMatch(/^query\./);
    }
    expect(expectShaped(await adminGet("merchant_id=%00"), 400, "INVALID_QUERY")).toMatch(
      /^query\.merchant_id/,
    );
  });

  it("checks each date on its own before comparing them", async () => {
    for (const get of [merchantGet, adminGet]) {
      const message = expectShaped(
        await get("from=1700000000&to=2020-01-01T00:00:00Z"),
        400,
        "INVALID_QUERY",
      );
      expect(message).toMatch(/^query\.from: /);
      expect(expectShaped(await get("from=2020-01-01T00:00:00Z&to=abc"), 400, "INVALID_QUERY")).toMatch(
        /^query\.to: /,
      );
    }
  });

  it("refuses dates PostgreSQL's timestamptz cannot hold, on the merchant and admin lists", async () => {
    for (const get of [merchantGet, adminGet]) {
      for (const query of [
        "from=0000-01-01T00:00:00Z",
        "to=0000-12-31T23:59:59Z",
        "from=0001-01-01T00:00:00%2B01:00",
        `from=${encodeURIComponent("+275760-09-13T00:00:00.000Z")}`,
        "from=9999-12-31T23:59:59-01:00",
      ]) {
        expectShaped(await get(query), 400, "INVALID_QUERY");
      }
      expect((await get("from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z")).statusCode).toBe(200);
    }
  });

  it("refuses from later than to", async () => {
    for (const get of [merchantGet, adminGet]) {
      const message = expectShaped(
        await get("from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z"),
        400,
        "INVALID_QUERY",
      );
      expect(message).toMatch(/later than to/);
    }
  });

  it("answers a NUL in a path parameter as not found", async () => {
    expectShaped(
      await t.app.inject({ method: "GET", url: "/api/v1/payments/%00", headers: { "x-api-key": apiKey } }),
      404,
      "NOT_FOUND",
    );
  });
});

describe("framework errors get generic codes, never a domain code", () => {
  it("answers a traversal attempt under /assets without borrowing MERCHANT_INACTIVE", async () => {
    const reply = await t.app.inject({ method: "GET", url: "/assets/..%5c..%5cpackage.json" });
    expect(reply.statusCode).toBeGreaterThanOrEqual(400);
    expect(reply.statusCode).toBeLessThan(500);
    const { code } = JSON.parse(reply.body) as { code: string };
    expect(["FORBIDDEN", "NOT_FOUND", "BAD_REQUEST"]).toContain(code);
    expectShaped(reply, reply.statusCode, code);
    expect(reply.body).not.toContain("stablegate");
  });

  it("answers a NUL in an asset path without borrowing INVALID_BODY", async () => {
    const reply = await t.app.inject({ method: "GET", url: "/assets/index.html%00.js" });
    const { code } = JSON.parse(reply.body) as { code: string };
    expect(["NOT_FOUND", "BAD_REQUEST", "FORBIDDEN"]).toContain(code);
    expectShaped(reply, reply.statusCode, code);
  });
});

describe("callback URLs that hide a host or credentials", () => {
  const refused = [
    "http://localhost./hook",
    "http://LOCALHOST../hook",
    "http://api.localhost/hook",
    "http://api.localhost./hook",
    "http://user:pass@example.com/hook",
    "http://user@example.com/hook",
    "http://127.0.0.1:80@example.com/",
  ];

  it.each(refused)("refuses %s at order creation", async (url) => {
    const before = await orderCount();
    const reply = await createPaymentRaw(JSON.stringify(validOrder({ callback_url: url })));
    expect(expectShaped(reply, 400, "INVALID_BODY")).toMatch(/^body\.callback_url: /);
    expect(await orderCount()).toBe(before);
  });

  it.each(refused)("refuses %s as a retry-webhook override", async (url) => {
    const reply = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/orders/00000000-0000-4000-8000-000000000000/retry-webhook",
      headers: { cookie, "content-type": "application/json" },
      payload: JSON.stringify({ callback_url: url }),
    });
    expectShaped(reply, 400, "VALIDATION_ERROR");
  });

  it("refuses credentials even where private networks are allowed", async () => {
    const open = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
    try {
      const key = (await createMerchantViaApi(open.app, await adminCookie(open.app))).api_key;
      const reply = await open.app.inject({
        method: "POST",
        url: "/api/v1/payments",
        headers: { "x-api-key": key, "content-type": "application/json" },
        payload: JSON.stringify(validOrder({ callback_url: "http://u:p@127.0.0.1:9/hook" })),
      });
      expect(expectShaped(reply, 400, "INVALID_BODY")).toMatch(/user name or password/);
    } finally {
      await open.close();
    }
  });
});
