import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";

describe("health", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("GET /api/v1/health answers 200 with the database latency (degraded: the test node is unreachable)", async () => {
    const reply = await t.app.inject({ method: "GET", url: "/api/v1/health" });
    expect(reply.statusCode).toBe(200);
    const body = reply.json();
    expect(body.status).toBe("degraded");
    expect(body.checks.chain).toMatchObject({ status: "degraded", head: null, error: "node unreachable" });
    expect(body.checks.database.status).toBe("ok");
    expect(typeof body.checks.database.latency_ms).toBe("number");
    expect(body.checks.database.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("GET /api/v1/health/live answers 200 {status: ok} without authentication", async () => {
    const reply = await t.app.inject({ method: "GET", url: "/api/v1/health/live" });
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({ status: "ok" });
  });
});

describe("health with the database gone", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.ctx.database.close();
  });
  afterAll(async () => {
    await t.close();
  });

  it("GET /api/v1/health answers 503 unavailable without leaking driver details", async () => {
    const reply = await t.app.inject({ method: "GET", url: "/api/v1/health" });
    expect(reply.statusCode).toBe(503);
    const body = reply.json();
    expect(body.status).toBe("unavailable");
    expect(body.checks.database).toMatchObject({ status: "unavailable", error: "database unreachable" });
    expect(reply.body).not.toMatch(/postgres|pglite|ECONNREFUSED|127\.0\.0\.1/i);
  });

  it("GET /api/v1/health/live still answers 200: the process runs", async () => {
    const reply = await t.app.inject({ method: "GET", url: "/api/v1/health/live" });
    expect(reply.statusCode).toBe(200);
  });

  it("a route that needs the database answers 503 with Retry-After, never a 500, and no internals", async () => {
    const requests = [
      {
        method: "GET" as const,
        url: "/api/v1/merchant/me",
        headers: { "x-api-key": `sg_test_${"A".repeat(43)}` },
      },
      { method: "GET" as const, url: "/api/v1/checkout/9d7c2a1e-3b4f-4c5d-8e6f-7a8b9c0d1e2f/status" },
      {
        method: "POST" as const,
        url: "/api/v1/admin/auth/login",
        headers: { "content-type": "application/json" },
        payload: JSON.stringify({ password: "whatever" }),
      },
    ];
    for (const request of requests) {
      const reply = await t.app.inject(request);
      expect(reply.statusCode, request.url).toBe(503);
      expect(reply.headers["retry-after"]).toBe("5");
      expect(reply.json()).toEqual({
        error: "service temporarily unavailable, retry shortly",
        code: "SERVICE_UNAVAILABLE",
      });
      expect(reply.body).not.toMatch(/postgres|pglite|ECONNREFUSED|127\.0\.0\.1/i);
    }
  });
});
