import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCookie, createMerchantViaApi, type CreatedMerchantReply } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
let cookie: string;
let merchant: CreatedMerchantReply;
beforeAll(async () => {
  t = await createTestApp();
  cookie = await adminCookie(t.app);
  merchant = await createMerchantViaApi(t.app, cookie, {
    name: "Key Shop",
    webhook_secret: "whsec-key-shop",
  });
});
afterAll(async () => {
  await t.close();
});

function me(apiKey?: string) {
  return t.app.inject({
    method: "GET",
    url: "/api/v1/merchant/me",
    headers: apiKey === undefined ? {} : { "x-api-key": apiKey },
  });
}

function rotate(id: string) {
  return t.app.inject({
    method: "POST",
    url: `/api/v1/admin/merchants/${id}/rotate-api-key`,
    headers: { cookie },
  });
}

describe("GET /api/v1/merchant/me (X-API-Key)", () => {
  it("answers the merchant of the key", async () => {
    const reply = await me(merchant.api_key);
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({
      id: merchant.id,
      name: "Key Shop",
      api_key_prefix: merchant.api_key_prefix,
      is_active: true,
      balance: { available: "0.000000", reserved: "0.000000" },
      // every currency the deployment enables (TRON: USDT), zero where none
      balances: { USDT: { available: "0.000000", reserved: "0.000000" } },
    });
  });

  it.each<[string, (m: CreatedMerchantReply) => string | undefined]>([
    ["no header", () => undefined],
    ["an empty key", () => ""],
    ["garbage", () => "hello"],
    ["a well-formed unknown key", () => `sg_test_${"A".repeat(43)}`],
    [
      "the key with its last character changed",
      (m) => m.api_key.slice(0, -1) + (m.api_key.endsWith("a") ? "b" : "a"),
    ],
    ["only the prefix", (m) => m.api_key_prefix],
    ["the secret part under another network's prefix", (m) => m.api_key.replace("sg_test_", "sg_live_")],
    ["a huge header", () => "sg_test_" + "x".repeat(8000)],
  ])("answers 401 UNAUTHORIZED for %s", async (_label, keyOf) => {
    const reply = await me(keyOf(merchant));
    expect(reply.statusCode).toBe(401);
    expect(reply.json()).toEqual({ error: expect.any(String), code: "UNAUTHORIZED" });
  });

  it("does not accept the key as a Bearer token", async () => {
    const reply = await t.app.inject({
      method: "GET",
      url: "/api/v1/merchant/me",
      headers: { authorization: `Bearer ${merchant.api_key}` },
    });
    expect(reply.json().code).toBe("UNAUTHORIZED");
  });

  it("answers 403 MERCHANT_INACTIVE for a suspended merchant's valid key, and 200 again once reactivated", async () => {
    const other = await createMerchantViaApi(t.app, cookie, {
      name: "Paused",
      webhook_secret: "whsec-paused",
    });
    const suspend = await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/merchants/${other.id}`,
      headers: { cookie },
      payload: { is_active: false },
    });
    expect(suspend.statusCode).toBe(200);
    const refused = await me(other.api_key);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: expect.any(String), code: "MERCHANT_INACTIVE" });
    // A wrong key for a suspended merchant is still just unauthorized.
    expect((await me(`sg_test_${"B".repeat(43)}`)).statusCode).toBe(401);
    await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/merchants/${other.id}`,
      headers: { cookie },
      payload: { is_active: true },
    });
    expect((await me(other.api_key)).statusCode).toBe(200);
  });
});

describe("POST /api/v1/admin/merchants/:id/rotate-api-key", () => {
  it("answers a new key and prefix; the old key is rejected at once and the new one accepted", async () => {
    const before = await createMerchantViaApi(t.app, cookie, {
      name: "Rotating",
      webhook_secret: "whsec-rot",
    });
    expect((await me(before.api_key)).statusCode).toBe(200);

    const reply = await rotate(before.id);
    expect(reply.statusCode).toBe(200);
    const body = reply.json();
    expect(Object.keys(body).sort()).toEqual(["api_key", "api_key_prefix", "id", "name"]);
    expect(body).toMatchObject({ id: before.id, name: "Rotating" });
    expect(body.api_key).toMatch(/^sg_test_[0-9A-Za-z]{43}$/);
    expect(body.api_key).not.toBe(before.api_key);
    expect(body.api_key_prefix).toBe(body.api_key.slice(0, 14));

    const old = await me(before.api_key);
    expect(old.statusCode).toBe(401);
    expect(old.json().code).toBe("UNAUTHORIZED");
    const fresh = await me(body.api_key);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json()).toMatchObject({ id: before.id, api_key_prefix: body.api_key_prefix });
  });

  it("shows the new prefix in the merchant list", async () => {
    const reply = await rotate(merchant.id);
    const list = await t.app.inject({ method: "GET", url: "/api/v1/admin/merchants", headers: { cookie } });
    const entry = list.json().data.find((m: { id: string }) => m.id === merchant.id);
    expect(entry.api_key_prefix).toBe(reply.json().api_key_prefix);
    merchant = { ...merchant, api_key: reply.json().api_key, api_key_prefix: reply.json().api_key_prefix };
  });

  it("is accepted with a JSON content type and an empty body", async () => {
    const reply = await t.app.inject({
      method: "POST",
      url: `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`,
      headers: { cookie, "content-type": "application/json" },
    });
    expect(reply.statusCode).toBe(200);
    merchant = { ...merchant, api_key: reply.json().api_key };
    expect((await me(merchant.api_key)).statusCode).toBe(200);
  });

  it.each([
    ["an unknown id", "3f1d2c4b-0000-4000-8000-000000000000"],
    ["a malformed id", "12345"],
  ])("answers 404 NOT_FOUND for %s", async (_label, id) => {
    const reply = await rotate(id);
    expect(reply.statusCode).toBe(404);
    expect(reply.json()).toEqual({ error: "merchant not found", code: "NOT_FOUND" });
  });
});
