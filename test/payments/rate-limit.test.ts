import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "./helpers.js";

let t: TestApp;
let shop: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ env: { MERCHANT_RATE_LIMIT_PER_MINUTE: "3" } });
  shop = await addMerchant(t.ctx);
});
afterAll(async () => {
  await t.close();
});

const list = (apiKey: string) =>
  t.app.inject({ method: "GET", url: "/api/v1/payments", headers: { "x-api-key": apiKey } });

describe("merchant API rate limit", () => {
  it("answers 429 RATE_LIMITED with Retry-After once a key spends its per-minute budget", async () => {
    expect((await postOrder(t, shop.apiKey, orderBody())).statusCode).toBe(201);
    // An invalid request counts as well.
    expect((await postOrder(t, shop.apiKey, orderBody({ amount: "0" }))).statusCode).toBe(400);
    expect((await list(shop.apiKey)).statusCode).toBe(200);
    const limited = await list(shop.apiKey);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe("RATE_LIMITED");
    // 3 per minute refills one request every 20 seconds.
    expect(limited.headers["retry-after"]).toBe("20");
    const refused = await postOrder(t, shop.apiKey, orderBody());
    expect(refused.statusCode).toBe(429);
  });

  it("limits each merchant separately", async () => {
    const other = await addMerchant(t.ctx);
    expect((await list(other.apiKey)).statusCode).toBe(200);
  });

  it("lets requests through again after Retry-After seconds", async () => {
    t.clock.advanceSeconds(19);
    expect((await list(shop.apiKey)).statusCode).toBe(429);
    t.clock.advanceSeconds(1);
    expect((await list(shop.apiKey)).statusCode).toBe(200);
    expect((await list(shop.apiKey)).statusCode).toBe(429);
  });
});

// The limit is one scope (src/http/routes/merchant/index.ts): a route module cannot be mounted
// outside it, nor count a request twice.
const NOT_MERCHANT = /^\/api\/v1\/(admin|checkout|health|refund-claims|docs|openapi\.json)(\/|$)/;
const ANY_ID = "0190a6d4-5f1e-7b2c-9d3e-4f5a6b7c8d9e";

describe("the merchant API's one rate-limited scope", () => {
  it("gives a key one budget across payments, deposit addresses and payouts", async () => {
    const fresh = await addMerchant(t.ctx);
    const get = (url: string) => t.app.inject({ method: "GET", url, headers: { "x-api-key": fresh.apiKey } });
    expect((await get("/api/v1/payments")).statusCode).toBe(200);
    expect((await get("/api/v1/deposit-addresses")).statusCode).toBe(200);
    expect((await get("/api/v1/payouts")).statusCode).toBe(200);
    expect((await get("/api/v1/deposits")).statusCode).toBe(429);
  });

  it("covers every merchant route but /merchant/me, before the route's own checks", async () => {
    const spent = await addMerchant(t.ctx);
    for (let i = 0; i < 3; i++) expect((await list(spent.apiKey)).statusCode).toBe(200);
    const routes = t.app.registeredRoutes.filter(
      (route) => route.url.startsWith("/api/v1/") && !NOT_MERCHANT.test(route.url) && route.method !== "HEAD",
    );
    expect(routes.length).toBeGreaterThanOrEqual(15);
    const answers: string[] = [];
    for (const route of routes) {
      const response = await t.app.inject({
        method: route.method as "GET",
        url: route.url.replace(/:[a-z_]+/g, ANY_ID),
        headers: { "x-api-key": spent.apiKey, "content-type": "application/json" },
        // A body no route accepts: the limit answers before validation does.
        ...(route.method === "GET" ? {} : { payload: "{}" }),
      });
      answers.push(`${route.method} ${route.url} ${response.statusCode}`);
    }
    expect(answers).toEqual(
      routes.map(
        (route) => `${route.method} ${route.url} ${route.url === "/api/v1/merchant/me" ? 200 : 429}`,
      ),
    );
    expect(answers).toContain("GET /api/v1/merchant/me 200");
  });
});
