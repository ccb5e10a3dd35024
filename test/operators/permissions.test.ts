/**
 * Every registered admin route (read from Fastify's own route registrations, not a list kept here)
 * against every role: the answer is 403 ADMIN_FORBIDDEN exactly when the permission table says the
 * role may not. A new admin route without a permission fails here and at start-up.
 */
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR_ROLES, type OperatorRole } from "../../src/admin/operator-types.js";
import { PERMISSIONS, isPermission, roleAllows } from "../../src/admin/permissions.js";
import { adminSession } from "../../src/http/plugins/admin-session.js";
import { adminCookie, createMerchantViaApi } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { createOperatorViaApi, operatorCookie } from "../helpers/operators.js";

let t: TestApp;
const cookies = {} as Record<OperatorRole, string>;
const PUBLIC_ADMIN_ROUTES = new Set([
  "POST /api/v1/admin/auth/login",
  "POST /api/v1/admin/auth/logout",
  "POST /api/v1/admin/auth/accept-invitation",
  "POST /api/v1/admin/auth/passkey-options",
]);
const SOME_ID = "00000000-0000-4000-8000-00000000abcd";

beforeAll(async () => {
  t = await createTestApp();
  cookies.owner = await adminCookie(t.app);
  for (const role of ["admin", "support", "viewer"] as const) {
    const email = `${role}@walk.example`;
    await createOperatorViaApi(t.app, cookies.owner, { email, role });
    cookies[role] = await operatorCookie(t.app, email);
  }
});
afterAll(async () => {
  await t.close();
});

function adminRoutes() {
  return t.app.registeredRoutes.filter(
    (route) =>
      route.url.startsWith("/api/v1/admin/") &&
      route.method !== "HEAD" &&
      !PUBLIC_ADMIN_ROUTES.has(`${route.method} ${route.url}`),
  );
}

describe("the permission table", () => {
  it("reserves the names the other issues use", () => {
    for (const name of [
      "orders.cancel",
      "orders.resolve",
      "strays.read",
      "strays.resolve",
      "refunds.create",
      "payouts.read",
      "payouts.create",
      "payouts.approve",
      "payouts.cancel",
      "deposit_addresses.read",
      "deposit_addresses.manage",
      "ledger.read",
    ]) {
      expect(isPermission(name), name).toBe(true);
    }
  });

  it("gives the owner everything, support no approval, the viewer no change", () => {
    for (const permission of Object.keys(PERMISSIONS) as (keyof typeof PERMISSIONS)[]) {
      expect(roleAllows("owner", permission), permission).toBe(true);
    }
    expect(roleAllows("support", "refunds.create")).toBe(true);
    expect(roleAllows("support", "payouts.approve")).toBe(false);
    expect(roleAllows("admin", "payouts.approve")).toBe(true);
    expect(roleAllows("admin", "operators.manage")).toBe(false);
    const viewerMay = (Object.keys(PERMISSIONS) as (keyof typeof PERMISSIONS)[]).filter((p) =>
      roleAllows("viewer", p),
    );
    expect(viewerMay.every((p) => p.endsWith(".read") || p === "account.self" || p === "sessions.own")).toBe(
      true,
    );
  });
});

describe("every admin route with every role", () => {
  it("finds the admin routes in Fastify's registrations, each with a permission of the table", () => {
    const routes = adminRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(25);
    for (const route of routes)
      expect(isPermission(route.permission), `${route.method} ${route.url}`).toBe(true);
  });

  it("answers 403 ADMIN_FORBIDDEN exactly where the table refuses the role", async () => {
    const mismatches: string[] = [];
    for (const route of adminRoutes()) {
      const url = route.url.replace(/:[A-Za-z_]+/g, SOME_ID);
      for (const role of OPERATOR_ROLES) {
        // A DELETE of a session would end the walker's own session only with its own id; SOME_ID is nobody's.
        const reply = await t.app.inject({
          method: route.method as "GET",
          url,
          headers: { cookie: cookies[role], "content-type": "application/json" },
          payload: route.method === "GET" || route.method === "DELETE" ? undefined : "{}",
        });
        const forbidden = reply.statusCode === 403 && reply.json().code === "ADMIN_FORBIDDEN";
        const expected = !roleAllows(role, route.permission as keyof typeof PERMISSIONS);
        if (forbidden !== expected || reply.statusCode === 401 || reply.statusCode >= 500) {
          mismatches.push(
            `${role} ${route.method} ${route.url}: ${reply.statusCode} ${reply.body.slice(0, 120)}`,
          );
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("never shows a viewer a secret: merchant create and rotate are refused before anything runs", async () => {
    const merchant = await createMerchantViaApi(t.app, cookies.admin);
    const create = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/merchants",
      headers: { cookie: cookies.viewer },
      payload: { name: "Viewer Shop", webhook_secret: "whsec-viewer-0123" },
    });
    expect(create.statusCode).toBe(403);
    expect(create.json()).toEqual({ error: expect.any(String), code: "ADMIN_FORBIDDEN" });
    const rotate = await t.app.inject({
      method: "POST",
      url: `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`,
      headers: { cookie: cookies.viewer },
    });
    expect(rotate.statusCode).toBe(403);
    expect(rotate.body).not.toContain("sg_test_");
    // Every read a viewer may make carries neither the key nor the webhook secret.
    for (const url of [
      "/api/v1/admin/merchants",
      `/api/v1/admin/merchants/${merchant.id}`,
      "/api/v1/admin/audit",
    ]) {
      const reply = await t.app.inject({ method: "GET", url, headers: { cookie: cookies.viewer } });
      expect(reply.statusCode, url).toBe(200);
      expect(reply.body, url).not.toContain(merchant.api_key);
      expect(reply.body, url).not.toContain(merchant.webhook_secret);
    }
  });
});

describe("a route without a permission", () => {
  it("cannot be registered in the admin scope", async () => {
    const app = Fastify();
    const build = async () => {
      await app.register(async (scope) => {
        await scope.register(adminSession, { ctx: t.ctx });
        scope.get("/api/v1/admin/unguarded", async () => ({ ok: true }));
      });
      await app.ready();
    };
    await expect(build()).rejects.toThrow(/must declare config.permission/);
    await app.close();
  });
});
