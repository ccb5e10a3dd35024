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
