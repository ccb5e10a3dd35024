/**
 * The merchant API's rate limit is one scope (src/http/routes/merchant/index.ts): a key has one
 * budget across payments, deposit addresses and payouts, and once it is spent every route of the
 * merchant API answers 429 before its own checks, except GET /api/v1/merchant/me, which lets a
 * merchant check its key at any time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";

let t: TestApp;
let shop: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ env: { MERCHANT_RATE_LIMIT_PER_MINUTE: "3" } });
  shop = await addMerchant(t.ctx);
});
afterAll(async () => {
  await t.close();
});

const get = (url: string, apiKey = shop.apiKey) =>
  t.app.inject({ method: "GET", url, headers: { "x-api-key": apiKey } });

// The admin API, the public routes and the API reference.
const NOT_MERCHANT = /^\/api\/v1\/(admin|checkout|health|refund-claims|docs|openapi\.json)(\/|$)/;
const ANY_ID = "0190a6d4-5f1e-7b2c-9d3e-4f5a6b7c8d9e";

describe("the merchant API's rate-limited scope", () => {
  it("gives a key one budget across payments, deposit addresses and payouts", async () => {
    expect((await get("/api/v1/payments")).statusCode).toBe(200);
    expect((await get("/api/v1/deposit-addresses")).statusCode).toBe(200);
    expect((await get("/api/v1/payouts")).statusCode).toBe(200);
    const refused = await get("/api/v1/deposits");
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: "RATE_LIMITED" });
    expect(refused.headers["retry-after"]).toBe("20");
  });

  it("covers every merchant route but /merchant/me, before the route's own checks", async () => {
    const routes = t.app.registeredRoutes.filter(
      (route) => route.url.startsWith("/api/v1/") && !NOT_MERCHANT.test(route.url) && route.method !== "HEAD",
    );
    expect(routes.length).toBeGreaterThanOrEqual(15);
    const answers: string[] = [];
    for (const route of routes) {
      const response = await t.app.inject({
        method: route.method as "GET",
        url: route.url.replace(/:[a-z_]+/g, ANY_ID),
        headers: { "x-api-key": shop.apiKey, "content-type": "application/json" },
        // A body no route accepts: the limit answers before validation does.
        ...(route.method === "GET" ? {} : { payload: "{}" }),
      });
      answers.push(`${route.method} ${route.url} ${response.statusCode}`);
    }
    const expected = routes.map(
      (route) => `${route.method} ${route.url} ${route.url === "/api/v1/merchant/me" ? 200 : 429}`,
    );
    expect(answers).toEqual(expected);
    expect(answers).toContain("GET /api/v1/merchant/me 200");
  });

  it("keeps each key's budget its own and refills it with the clock", async () => {
    const other = await addMerchant(t.ctx);
    expect((await get("/api/v1/payouts", other.apiKey)).statusCode).toBe(200);
    t.clock.advanceSeconds(19);
    expect((await get("/api/v1/payouts")).statusCode).toBe(429);
    t.clock.advanceSeconds(1);
    expect((await get("/api/v1/payouts")).statusCode).toBe(200);
    expect((await get("/api/v1/payments")).statusCode).toBe(429);
  });
});
