import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { createOperatorViaApi, loginReply, operatorCookie } from "../helpers/operators.js";
import { operators } from "../../src/db/schema.js";

let t: TestApp;
let owner: string;
beforeAll(async () => {
  t = await createTestApp();
  owner = await adminCookie(t.app);
});
afterAll(async () => {
  await t.close();
});

describe("operator accounts", () => {
  it("lets the owner create an admin and a viewer who each see exactly what their role allows", async () => {
    await createOperatorViaApi(t.app, owner, { email: "Ada@Example.com", role: "admin", name: "Ada" });
    await createOperatorViaApi(t.app, owner, { email: "vic@example.com", role: "viewer", name: "Vic" });
    const ada = await operatorCookie(t.app, "ada@example.com");
    const vic = await operatorCookie(t.app, "vic@example.com");
    const me = await t.app.inject({ method: "GET", url: "/api/v1/admin/me", headers: { cookie: ada } });
    expect(me.json()).toMatchObject({
      email: "ada@example.com",
      name: "Ada",
      role: "admin",
      totp_enabled: false,
    });
    expect(me.json().permissions).toContain("merchants.create");
    expect(me.json().permissions).not.toContain("operators.manage");
    const created = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/merchants",
      headers: { cookie: ada },
      payload: { name: "Ada's shop", webhook_secret: "whsec-ada-0123456789" },
    });
    expect(created.statusCode).toBe(201);
    for (const [cookie, status] of [
      [ada, 403],
      [vic, 403],
      [owner, 200],
    ] as const) {
      const list = await t.app.inject({ method: "GET", url: "/api/v1/admin/operators", headers: { cookie } });
      expect(list.statusCode).toBe(status);
    }
    const vicMe = await t.app.inject({ method: "GET", url: "/api/v1/admin/me", headers: { cookie: vic } });
    expect(
      vicMe
        .json()
        .permissions.every((p: string) => p.endsWith(".read") || p.includes("self") || p.includes("own")),
    ).toBe(true);
  });

  it("answers 409 OPERATOR_EXISTS for an email in use, whatever its case", async () => {
    await createOperatorViaApi(t.app, owner, { email: "dup@example.com", role: "support" });
    const again = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/operators",
      headers: { cookie: owner },
      payload: { email: "DUP@example.com", name: "Dup", role: "viewer", password: "another long password" },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe("OPERATOR_EXISTS");
  });

  it("stores only an argon2id hash of the password", async () => {
    await createOperatorViaApi(t.app, owner, {
      email: "hash@example.com",
      role: "viewer",
      password: "the plain password 42",
    });
    const rows = await t.ctx.db.select().from(operators);
    const row = rows.find((r) => r.email === "hash@example.com");
    expect(row?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(JSON.stringify(rows)).not.toContain("the plain password 42");
  });

  it("sends a one-time invitation link where the operator sets a password, then logs in", async () => {
    const reply = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/operators",
      headers: { cookie: owner },
      payload: { email: "invited@example.com", name: "Invited", role: "support" },
    });
    expect(reply.statusCode).toBe(201);
    const url = reply.json<{ invitation_url: string }>().invitation_url;
    expect(url).toMatch(/\/admin\/invitation#token=[A-Za-z0-9_-]{43}$/);
    expect(reply.json().operator.invitation_pending).toBe(true);
    const token = url.split("#token=")[1] as string;
    expect(
      (await loginReply(t.app, { email: "invited@example.com", password: "anything at all 1" })).statusCode,
    ).toBe(401);
    const accept = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/accept-invitation",
      payload: { token, password: "my own chosen password" },
    });
    expect(accept.json()).toEqual({ ok: true, email: "invited@example.com" });
    const again = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/accept-invitation",
      payload: { token, password: "a second password try" },
    });
    expect(again.statusCode).toBe(404);
    await operatorCookie(t.app, "invited@example.com", { password: "my own chosen password" });
  });

  it("expires an invitation after 7 days", async () => {
    const reply = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/operators",
      headers: { cookie: owner },
      payload: { email: "late@example.com", name: "Late", role: "viewer" },
    });
    const token = reply.json<{ invitation_url: string }>().invitation_url.split("#token=")[1] as string;
    const start = t.clock.now();
    t.clock.advanceSeconds(7 * 24 * 3600 + 1);
    try {
      const accept = await t.app.inject({
        method: "POST",
        url: "/api/v1/admin/auth/accept-invitation",
        payload: { token, password: "too late a password" },
      });
      expect(accept.statusCode).toBe(404);
    } finally {
      t.clock.set(start);
    }
  });

  it("keeps the built-in owner's role and refuses to disable it", async () => {
    const list = await t.app.inject({
      method: "GET",
      url: "/api/v1/admin/operators",
      headers: { cookie: owner },
    });
    const builtin = list.json<{ data: { id: string; is_builtin: boolean }[] }>().data[0];
    expect(builtin?.is_builtin).toBe(true);
    const reply = await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/operators/${builtin?.id}`,
      headers: { cookie: owner },
      payload: { is_active: false },
    });
    expect(reply.statusCode).toBe(409);
  });

  it("limits failed logins per account across addresses", async () => {
    await createOperatorViaApi(t.app, owner, { email: "target@example.com", role: "viewer" });
    for (let i = 0; i < 10; i++) {
      const reply = await loginReply(t.app, { email: "target@example.com", password: `wrong guess ${i}` });
      expect(reply.statusCode).toBe(401);
    }
    const refused = await loginReply(t.app, {
      email: "target@example.com",
      password: "correct horse battery staple",
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe("RATE_LIMITED");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
  });
});
