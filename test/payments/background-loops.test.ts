import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getAddressPoolCounts } from "../../src/wallet/get-address-pool-counts.js";
import { startPaymentLoops } from "../../src/workers/payment-loops.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { POOL_MIN_FREE: "150" } });
});
afterAll(async () => {
  await t.close();
});

describe("payment background loops", () => {
  it("the pool filler loop tops the pool up to POOL_MIN_FREE in batches", async () => {
    const loops = startPaymentLoops(t.ctx);
    try {
      await vi.waitFor(async () => expect((await getAddressPoolCounts(t.ctx)).free).toBe(150), {
        timeout: 20_000,
        interval: 50,
      });
    } finally {
      await Promise.all(loops.map((loop) => loop.stop()));
    }
    expect(await getAddressPoolCounts(t.ctx)).toEqual({ total: 150, free: 150, allocated: 0 });
  });

  it("describes the payment routes in the OpenAPI document", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    for (const path of [
      "/api/v1/payments",
      "/api/v1/payments/{id}",
      "/api/v1/checkout/{id}/status",
      "/api/v1/admin/orders",
      "/api/v1/admin/orders/{id}",
      "/api/v1/admin/stats",
      "/api/v1/admin/stats/daily",
      "/api/v1/admin/incidents",
    ]) {
      expect(paths).toContain(path);
    }
  });
});
