/**
 * Malformed requests never reach a 500: each answers a 4xx with exactly { error, code }.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMIT_BYTES } from "../../src/http/app.js";
import { adminCookie, createMerchantViaApi, uniqueIp } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
let cookie: string;
let merchantId: string;
let apiKey: string;
beforeAll(async () => {
  t = await createTestApp();
  cookie = await adminCookie(t.app);
  const merchant = await createMerchantViaApi(t.app, cookie);
  merchantId = merchant.id;
  apiKey = merchant.api_key;
});
afterAll(async () => {
  await t.close();
});

interface BadRequest {
  name: string;
  method: "GET" | "POST" | "PUT";
  url: () => string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  status: number;
  code: string;
}

const JSON_CT = { "content-type": "application/json" };
const big = JSON.stringify({ name: "x", webhook_secret: "y".repeat(BODY_LIMIT_BYTES) });
const deep = `{"name":${"[".repeat(5000)}${"]".repeat(5000)},"webhook_secret":"12345678"}`;

const CASES: BadRequest[] = [
  {
    name: "invalid JSON",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: '{"name": "x",',
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "JSON with a trailing comma",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: '{"name":"x",}',
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a body over 32 KB",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: big,
    status: 413,
    code: "PAYLOAD_TOO_LARGE",
  },
  {
    name: "a text/plain body",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: { "content-type": "text/plain" },
    body: '{"name":"x","webhook_secret":"12345678"}',
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "a form body",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "name=x&webhook_secret=12345678",
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "a multipart body",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: { "content-type": "multipart/form-data; boundary=xyz" },
    body: '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--xyz--',
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "a body without a content type",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    body: '{"name":"x","webhook_secret":"12345678"}',
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "a malformed content type",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: { "content-type": "application/" },
    body: "{}",
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "a text/plain PUT",
    method: "PUT",
    url: () => `/api/v1/admin/merchants/${merchantId}`,
    headers: { "content-type": "text/plain" },
    body: '{"name":"x"}',
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "a text/plain login",
    method: "POST",
    url: () => "/api/v1/admin/auth/login",
    headers: { "content-type": "text/plain" },
    body: '{"password":"x"}',
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "a text/plain body on rotate",
    method: "POST",
    url: () => `/api/v1/admin/merchants/${merchantId}/rotate-api-key`,
    headers: { "content-type": "text/plain" },
    body: "rotate",
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "a JSON array",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: "[]",
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "JSON null",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: "null",
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a JSON number",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: "12",
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a JSON string",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: '"merchant"',
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a JSON boolean login",
    method: "POST",
    url: () => "/api/v1/admin/auth/login",
    headers: JSON_CT,
    body: "true",
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "an empty JSON body on create",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: "",
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a huge name string",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: JSON.stringify({ name: "n".repeat(30_000), webhook_secret: "12345678" }),
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a huge password string",
    method: "POST",
    url: () => "/api/v1/admin/auth/login",
    headers: JSON_CT,
    body: JSON.stringify({ password: "p".repeat(30_000) }),
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "deeply nested arrays",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: deep,
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a NUL character in the name",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: '{"name":"a\\u0000b","webhook_secret":"12345678"}',
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a lone surrogate in the name",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: '{"name":"a\\ud800b","webhook_secret":"12345678"}',
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "invalid UTF-8 bytes",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a __proto__ key",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: '{"name":"x","webhook_secret":"12345678","__proto__":{"is_active":false}}',
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a nested __proto__ key",
    method: "PUT",
    url: () => `/api/v1/admin/merchants/${merchantId}`,
    headers: JSON_CT,
    body: '{"name":{"__proto__":{"polluted":true}}}',
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a constructor.prototype key",
    method: "POST",
    url: () => "/api/v1/admin/merchants",
    headers: JSON_CT,
    body: '{"name":"x","webhook_secret":"12345678","constructor":{"prototype":{"polluted":true}}}',
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a constructor key as the update",
    method: "PUT",
    url: () => `/api/v1/admin/merchants/${merchantId}`,
    headers: JSON_CT,
    body: '{"constructor":"x"}',
    status: 400,
    code: "EMPTY_UPDATE",
  },
  {
    name: "a __proto__ login",
    method: "POST",
    url: () => "/api/v1/admin/auth/login",
    headers: JSON_CT,
    body: '{"__proto__":{"password":"x"}}',
    status: 400,
    code: "INVALID_BODY",
  },
  {
    name: "a malformed merchant id with a body",
    method: "PUT",
    url: () => "/api/v1/admin/merchants/%00%ff",
    headers: JSON_CT,
    body: '{"name":"x"}',
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "a very long merchant id",
    method: "GET",
    url: () => `/api/v1/admin/merchants/${"a".repeat(5000)}`,
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "a merchant id of 100 characters",
    method: "GET",
    url: () => `/api/v1/admin/merchants/${"a".repeat(100)}`,
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "an undecodable URL on the merchant API",
    method: "GET",
    url: () => "/api/v1/merchant/%E0%A4%A",
    status: 404,
    code: "NOT_FOUND",
  },
  { name: "an unknown route", method: "GET", url: () => "/api/v1/nope", status: 404, code: "NOT_FOUND" },
  {
    name: "an unknown admin route",
    method: "POST",
    url: () => "/api/v1/admin/merchants/x/y/z",
    headers: JSON_CT,
    body: "{}",
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "a wrong method",
    method: "PUT",
    url: () => "/api/v1/admin/auth/login",
    headers: JSON_CT,
    body: "{}",
    status: 404,
    code: "NOT_FOUND",
  },
];

describe("malformed requests", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s answers 4xx {error, code}", async (_name, c) => {
    const reply = await t.app.inject({
      method: c.method,
      url: c.url(),
      headers: { cookie, ...c.headers },
      ...(c.body === undefined ? {} : { body: c.body }),
      remoteAddress: uniqueIp(),
    });
    expect(reply.statusCode, reply.body).toBe(c.status);
    const body = reply.json();
    expect(Object.keys(body).sort()).toEqual(["code", "error"]);
    expect(body.code).toBe(c.code);
    expect(typeof body.error).toBe("string");
    expect(body.error.length).toBeGreaterThan(0);
    expect(reply.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("left the merchant untouched and Object.prototype clean", async () => {
    const reply = await t.app.inject({
      method: "GET",
      url: `/api/v1/admin/merchants/${merchantId}`,
      headers: { cookie },
    });
    expect(reply.json()).toMatchObject({ name: "Test Shop", is_active: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).is_active).toBeUndefined();
  });

  it("accepts bodiless POSTs with and without a JSON content type", async () => {
    for (const headers of [{}, JSON_CT, { "content-type": "application/json; charset=utf-8" }]) {
      const logout = await t.app.inject({ method: "POST", url: "/api/v1/admin/auth/logout", headers });
      expect(logout.statusCode).toBe(200);
      const rotate = await t.app.inject({
        method: "POST",
        url: `/api/v1/admin/merchants/${merchantId}/rotate-api-key`,
        headers: { cookie, ...headers },
      });
      expect(rotate.statusCode).toBe(200);
    }
  });

  it("answers 401 UNAUTHORIZED, never 500, for odd X-API-Key values", async () => {
    void apiKey;
    for (const key of [" ", "sg_test_%00", "sg_test_' OR 1=1 --", "😀", "a".repeat(10_000)]) {
      const reply = await t.app.inject({
        method: "GET",
        url: "/api/v1/merchant/me",
        headers: { "x-api-key": Buffer.from(key).toString("latin1") },
      });
      expect(reply.statusCode, key.slice(0, 20)).toBe(401);
      expect(reply.json().code).toBe("UNAUTHORIZED");
    }
  });
});
