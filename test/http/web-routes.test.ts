import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerErrorHandling } from "../../src/http/errors.js";
import { webRoutes } from "../../src/http/routes/web.js";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, postOrder } from "../payments/helpers.js";

let t: TestApp;
beforeAll(async () => {
  await ensureWebBuild();
  t = await createTestApp();
}, 120_000);
afterAll(async () => {
  await t.close();
});

describe("web routes", () => {
  it("serves the checkout page at the path of every order's checkout_url, uncached and under a strict CSP", async () => {
    const merchant = await addMerchant(t.ctx);
    const created = await postOrder(t, merchant.apiKey, orderBody());
    expect(created.statusCode).toBe(201);
    const { pathname } = new URL(created.json<{ checkout_url: string }>().checkout_url);
    const res = await t.app.inject({ method: "GET", url: pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.headers["x-robots-tag"]).toBe("noindex");
    expect(res.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(res.body).toContain('<div id="root"></div>');
    expect(res.body).not.toMatch(/<script>(?!<\/script>)/);
  });

  it("serves the refund claim page at /refund/:token like the checkout page (never indexed)", async () => {
    const res = await t.app.inject({ method: "GET", url: "/refund/some-claim-token-0123456789" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.headers["x-robots-tag"]).toBe("noindex");
    expect(res.body).toContain('<div id="root"></div>');
  });

  it("serves the operator dashboard page at /admin and every /admin/* path, and leaves the admin API alone", async () => {
    for (const url of ["/admin", "/admin/orders", "/admin/orders/00000000-0000-4000-8000-000000000000"]) {
      const res = await t.app.inject({ method: "GET", url });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.body).toContain('<div id="root"></div>');
    }
    const api = await t.app.inject({ method: "GET", url: "/api/v1/admin/stats" });
    expect(api.statusCode).toBe(401);
    expect(api.json()).toMatchObject({ code: "ADMIN_UNAUTHORIZED" });
  });

  it("serves the hashed assets for a year, and 404 {error, code} for unknown ones", async () => {
    const page = await t.app.inject({ method: "GET", url: "/checkout/anything" });
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(script).toBeDefined();
    const asset = await t.app.inject({ method: "GET", url: script as string });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["content-type"]).toMatch(/javascript/);
    expect(asset.headers["cache-control"]).toContain("immutable");
    const missing = await t.app.inject({ method: "GET", url: "/assets/nothing-here.js" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("answers 503 SERVICE_UNAVAILABLE, not a crash, when the web UI was never built", async () => {
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    await app.register(webRoutes, { bundleDir: null });
    const res = await app.inject({ method: "GET", url: "/checkout/abc" });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      error: "the web UI is not built: run npm run build:web",
      code: "SERVICE_UNAVAILABLE",
    });
    await app.close();
  });
});
