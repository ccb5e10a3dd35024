import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext } from "../../src/context.js";
import { buildApp, type App } from "../../src/http/app.js";
import { createLogger } from "../../src/logger.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, postOrder } from "./helpers.js";

// Two app instances on one database stand for two API replicas: each has its own key cache.
let replicaA: TestApp;
let replicaB: App;

beforeAll(async () => {
  replicaA = await createTestApp();
  const ctxB = await createContext(replicaA.ctx.config, {
    database: replicaA.testDb.database,
    clock: replicaA.clock,
    log: createLogger({ level: "silent" }),
  });
  replicaB = await buildApp(ctxB);
  await replicaB.ready();
});
afterAll(async () => {
  await replicaB.close();
  await replicaA.close();
});

describe("order creation with a cached API key", () => {
  it("refuses the old key at once after a rotation on another replica", async () => {
    const merchant = await addMerchant(replicaA.ctx);
    expect((await postOrder(replicaA, merchant.apiKey, orderBody())).statusCode).toBe(201);

    const cookie = await adminCookie(replicaB);
    const rotated = await replicaB.inject({
      method: "POST",
      url: `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`,
      headers: { cookie },
    });
    expect(rotated.statusCode).toBe(200);

    const stale = await postOrder(replicaA, merchant.apiKey, orderBody());
    expect(stale.statusCode).toBe(401);
    expect(stale.json()).toEqual({ error: "invalid API key", code: "UNAUTHORIZED" });
    const fresh = await postOrder(replicaA, rotated.json().api_key, orderBody());
    expect(fresh.statusCode).toBe(201);
  });

  it("refuses a merchant suspended on another replica at once, and accepts it again when reactivated", async () => {
    const merchant = await addMerchant(replicaA.ctx);
    expect((await postOrder(replicaA, merchant.apiKey, orderBody())).statusCode).toBe(201);
    const cookie = await adminCookie(replicaB);
    const suspend = (isActive: boolean) =>
      replicaB.inject({
        method: "PUT",
        url: `/api/v1/admin/merchants/${merchant.id}`,
        headers: { cookie, "content-type": "application/json" },
        payload: { is_active: isActive },
      });

    expect((await suspend(false)).statusCode).toBe(200);
    const refused = await postOrder(replicaA, merchant.apiKey, orderBody());
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: "MERCHANT_INACTIVE" });

    expect((await suspend(true)).statusCode).toBe(200);
    expect((await postOrder(replicaA, merchant.apiKey, orderBody())).statusCode).toBe(201);
  });

  it("creates nothing and claims no address when the key was rotated", async () => {
    const merchant = await addMerchant(replicaA.ctx);
    const body = orderBody();
    expect((await postOrder(replicaA, merchant.apiKey, orderBody())).statusCode).toBe(201);
    const cookie = await adminCookie(replicaB);
    await replicaB.inject({
      method: "POST",
      url: `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`,
      headers: { cookie },
    });
    expect((await postOrder(replicaA, merchant.apiKey, body)).statusCode).toBe(401);
    const list = await replicaB.inject({
      method: "GET",
      url: `/api/v1/admin/orders?merchant_id=${merchant.id}`,
      headers: { cookie },
    });
    expect(list.json().pagination.total).toBe(1);
  });
});
