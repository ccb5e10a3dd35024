import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCookie, uniqueIp } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
let cookie: string;
beforeAll(async () => {
  t = await createTestApp();
  cookie = await adminCookie(t.app);
});
afterAll(async () => {
  await t.close();
});

describe("error replies", () => {
  it("answers an unknown route with 404 NOT_FOUND in the { error, code } shape", async () => {
    for (const [method, url] of [
      ["GET", "/nope"],
      ["GET", "/api/v1/does-not-exist"],
      ["DELETE", "/api/v1/admin/merchants"],
      ["GET", "/api/v2/health"],
    ] as const) {
      const reply = await t.app.inject({ method, url });
      expect(reply.statusCode, `${method} ${url}`).toBe(404);
      expect(reply.json()).toEqual({ error: expect.any(String), code: "NOT_FOUND" });
    }
  });

  it("gives every error exactly the keys error and code", async () => {
    const replies = [
      await t.app.inject({ method: "GET", url: "/api/v1/admin/merchants" }),
      await t.app.inject({
        method: "GET",
        url: "/api/v1/admin/merchants",
        headers: { cookie: "admin_token=x" },
      }),
      await t.app.inject({
        method: "POST",
        url: "/api/v1/admin/auth/login",
        payload: { password: "wrong" },
        remoteAddress: uniqueIp(),
      }),
      await t.app.inject({
        method: "POST",
        url: "/api/v1/admin/merchants",
        headers: { cookie },
        payload: {},
      }),
      await t.app.inject({
        method: "PUT",
        url: "/api/v1/admin/merchants/00000000-0000-4000-8000-000000000000",
        headers: { cookie },
        payload: {},
      }),
      await t.app.inject({
        method: "GET",
        url: "/api/v1/admin/merchants/00000000-0000-4000-8000-000000000000",
        headers: { cookie },
      }),
      await t.app.inject({ method: "GET", url: "/api/v1/merchant/me" }),
      await t.app.inject({
        method: "POST",
        url: "/api/v1/admin/merchants",
        headers: { cookie, "content-type": "text/plain" },
        body: "x",
      }),
    ];
    const codes = replies.map((reply) => {
      expect(reply.statusCode).toBeGreaterThanOrEqual(400);
      expect(reply.statusCode).toBeLessThan(500);
      const body = reply.json();
      expect(Object.keys(body).sort()).toEqual(["code", "error"]);
      return body.code;
    });
    expect(codes).toEqual([
      "ADMIN_UNAUTHORIZED",
      "ADMIN_TOKEN_INVALID",
      "INVALID_PASSWORD",
      "INVALID_BODY",
      "EMPTY_UPDATE",
      "NOT_FOUND",
      "UNAUTHORIZED",
      "UNSUPPORTED_MEDIA_TYPE",
    ]);
  });
});

describe("headers", () => {
  it("sets security headers on API replies, errors included", async () => {
    for (const url of ["/api/v1/health/live", "/api/v1/admin/merchants", "/api/v1/nope"]) {
      const reply = await t.app.inject({ method: "GET", url });
      expect(reply.headers["x-content-type-options"], url).toBe("nosniff");
      expect(reply.headers["x-frame-options"], url).toBe("SAMEORIGIN");
      expect(reply.headers["content-security-policy"], url).toContain("frame-ancestors 'none'");
      expect(reply.headers["content-security-policy"], url).toContain("default-src 'self'");
      expect(reply.headers["referrer-policy"], url).toBe("no-referrer");
      expect(reply.headers["x-powered-by"], url).toBeUndefined();
    }
  });

  it("sends Strict-Transport-Security and upgrade-insecure-requests only in production", async () => {
    const reply = await t.app.inject({ method: "GET", url: "/api/v1/health/live" });
    expect(reply.headers["strict-transport-security"]).toBeUndefined();
    expect(reply.headers["content-security-policy"]).not.toContain("upgrade-insecure-requests");
    const prod = await createTestApp({ env: { NODE_ENV: "production", TRON_NETWORK: "nile" } });
    try {
      const secure = await prod.app.inject({ method: "GET", url: "/api/v1/health/live" });
      expect(secure.headers["strict-transport-security"]).toMatch(/max-age=\d+/);
      expect(secure.headers["content-security-policy"]).toContain("upgrade-insecure-requests");
    } finally {
      await prod.close();
    }
  });

  it("echoes a well-formed X-Request-Id, on errors too", async () => {
    for (const url of ["/api/v1/health/live", "/api/v1/admin/merchants"]) {
      const reply = await t.app.inject({
        method: "GET",
        url,
        headers: { "x-request-id": "req-abc_123.XYZ" },
      });
      expect(reply.headers["x-request-id"]).toBe("req-abc_123.XYZ");
    }
  });

  it("replaces a malformed X-Request-Id with a generated one", async () => {
    for (const bad of ["short", "has spaces in it", "x".repeat(65), "<script>alert(1)</script>"]) {
      const reply = await t.app.inject({
        method: "GET",
        url: "/api/v1/health/live",
        headers: { "x-request-id": bad },
      });
      expect(reply.headers["x-request-id"]).not.toBe(bad);
      expect(reply.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("generates a different request id for each request without one", async () => {
    const a = await t.app.inject({ method: "GET", url: "/api/v1/health/live" });
    const b = await t.app.inject({ method: "GET", url: "/api/v1/health/live" });
    expect(a.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers["x-request-id"]).not.toBe(b.headers["x-request-id"]);
  });
});

describe("OpenAPI document", () => {
  it("documents the admin and merchant routes with their request schemas", async () => {
    const reply = await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    expect(reply.statusCode).toBe(200);
    const doc = reply.json();
    for (const path of [
      "/api/v1/admin/auth/login",
      "/api/v1/admin/auth/logout",
      "/api/v1/admin/merchants",
      "/api/v1/admin/merchants/{id}",
      "/api/v1/admin/merchants/{id}/rotate-api-key",
      "/api/v1/merchant/me",
    ]) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    const create = doc.paths["/api/v1/admin/merchants"].post.requestBody.content["application/json"].schema;
    expect(create.properties.name).toMatchObject({ type: "string", minLength: 1, maxLength: 255 });
    expect(create.properties.webhook_secret).toMatchObject({ type: "string", minLength: 8, maxLength: 255 });
    expect(create.properties.webhookSecret.deprecated).toBe(true);
  });
});
