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

  it("a route that needs the database answers 500 INTERNAL_ERROR without internals", async () => {
    const reply = await t.app.inject({
      method: "GET",
      url: "/api/v1/merchant/me",
      headers: { "x-api-key": `sg_test_${"A".repeat(43)}` },
    });
    expect(reply.statusCode).toBe(500);
    expect(reply.json()).toEqual({ error: "internal error", code: "INTERNAL_ERROR" });
  });
});
