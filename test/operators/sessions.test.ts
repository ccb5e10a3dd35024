import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { OPERATOR_PASSWORD, createOperatorViaApi, loginReply, operatorCookie } from "../helpers/operators.js";

let t: TestApp;
let owner: string;
beforeAll(async () => {
  t = await createTestApp();
  owner = await adminCookie(t.app);
});
afterAll(async () => {
  await t.close();
});

function get(url: string, cookie: string) {
  return t.app.inject({ method: "GET", url, headers: { cookie } });
}

async function sessionsOf(cookie: string, query = "") {
  const reply = await get(`/api/v1/admin/sessions${query}`, cookie);
  expect(reply.statusCode, reply.body).toBe(200);
  return reply.json<{
    data: { id: string; operator_id: string; current: boolean; revoked_at: string | null }[];
  }>().data;
}

async function expectDead(cookie: string) {
  const reply = await get("/api/v1/admin/stats", cookie);
  expect(reply.statusCode).toBe(401);
  expect(reply.json().code).toBe("ADMIN_TOKEN_INVALID");
}

describe("sessions", () => {
  it("lists one's own sessions and marks the current one", async () => {
    await createOperatorViaApi(t.app, owner, { email: "list@sessions.example", role: "support" });
    const first = await operatorCookie(t.app, "list@sessions.example");
    const second = await operatorCookie(t.app, "list@sessions.example");
    const seen = await sessionsOf(second);
    expect(seen).toHaveLength(2);
    expect(seen.filter((s) => s.current)).toHaveLength(1);
    expect(new Set(seen.map((s) => s.operator_id)).size).toBe(1);
    expect((await get("/api/v1/admin/sessions?all=true", first)).json().code).toBe("ADMIN_FORBIDDEN");
  });

  it("answers an empty list, not a 500, for an operator_id that is no operator's (the fuzz found it)", async () => {
    expect(await sessionsOf(owner, "?operator_id=J2*x")).toEqual([]);
    expect(await sessionsOf(owner, "?page=2.93e%2B243&operator_id=J2*x")).toEqual([]);
    expect(await sessionsOf(owner, "?operator_id=00000000-0000-4000-8000-0000000000ff")).toEqual([]);
  });

  it("stops a stolen cookie the moment its session is revoked", async () => {
    await createOperatorViaApi(t.app, owner, { email: "stolen@sessions.example", role: "admin" });
    const victim = await operatorCookie(t.app, "stolen@sessions.example");
    const thief = victim; // a copy of the same cookie
    expect((await get("/api/v1/admin/stats", thief)).statusCode).toBe(200);
    const current = (await sessionsOf(victim)).find((s) => s.current);
    const other = await operatorCookie(t.app, "stolen@sessions.example");
    const revoke = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/admin/sessions/${current?.id}`,
      headers: { cookie: other },
    });
    expect(revoke.statusCode, revoke.body).toBe(200);
    await expectDead(thief);
    expect((await get("/api/v1/admin/stats", other)).statusCode).toBe(200);
  });

  it("logout revokes the session row, so a copied cookie stops working too", async () => {
    const cookie = await adminCookie(t.app);
    const copy = cookie;
    const reply = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/logout",
      headers: { cookie },
    });
    expect(reply.statusCode).toBe(200);
    await expectDead(copy);
  });

  it("lets the owner revoke anyone's session, and nobody else revoke the owner's", async () => {
    await createOperatorViaApi(t.app, owner, { email: "other@sessions.example", role: "admin" });
    const adminCookieValue = await operatorCookie(t.app, "other@sessions.example");
    const ownerSession = (await sessionsOf(owner)).find((s) => s.current);
    const refused = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/admin/sessions/${ownerSession?.id}`,
      headers: { cookie: adminCookieValue },
    });
    expect(refused.statusCode).toBe(404);
    expect((await get("/api/v1/admin/stats", owner)).statusCode).toBe(200);
    const adminSession = (await sessionsOf(adminCookieValue)).find((s) => s.current);
    const byOwner = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/admin/sessions/${adminSession?.id}`,
      headers: { cookie: owner },
    });
    expect(byOwner.statusCode).toBe(200);
    await expectDead(adminCookieValue);
  });

  it("revokes an operator's sessions when the owner changes their role or disables them", async () => {
    const created = await createOperatorViaApi(t.app, owner, {
      email: "role@sessions.example",
      role: "admin",
    });
    const before = await operatorCookie(t.app, "role@sessions.example");
    const change = await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/operators/${created.id}`,
      headers: { cookie: owner },
      payload: { role: "viewer" },
    });
    expect(change.statusCode, change.body).toBe(200);
    expect(change.json().role).toBe("viewer");
    await expectDead(before);
    const asViewer = await operatorCookie(t.app, "role@sessions.example");
    expect((await get("/api/v1/admin/stats", asViewer)).statusCode).toBe(200);
    const create = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/merchants",
      headers: { cookie: asViewer },
      payload: { name: "x", webhook_secret: "whsec-0123456789" },
    });
    expect(create.json().code).toBe("ADMIN_FORBIDDEN");

    const disable = await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/operators/${created.id}`,
      headers: { cookie: owner },
      payload: { is_active: false },
    });
    expect(disable.statusCode).toBe(200);
    await expectDead(asViewer);
    const login = await loginReply(t.app, { email: "role@sessions.example", password: OPERATOR_PASSWORD });
    expect(login.statusCode).toBe(401);
    expect(login.json().code).toBe("INVALID_PASSWORD");
    await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/operators/${created.id}`,
      headers: { cookie: owner },
      payload: { is_active: true },
    });
    expect(
      (await loginReply(t.app, { email: "role@sessions.example", password: OPERATOR_PASSWORD })).statusCode,
    ).toBe(200);
  });

  it("revokes one's other sessions on a password change and keeps the current one", async () => {
    await createOperatorViaApi(t.app, owner, { email: "pw@sessions.example", role: "support" });
    const elsewhere = await operatorCookie(t.app, "pw@sessions.example");
    const here = await operatorCookie(t.app, "pw@sessions.example");
    const wrong = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/password",
      headers: { cookie: here },
      payload: { current_password: "not it at all", new_password: "a brand new passphrase" },
    });
    expect(wrong.json().code).toBe("INVALID_PASSWORD");
    const short = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/password",
      headers: { cookie: here },
      payload: { current_password: OPERATOR_PASSWORD, new_password: "short" },
    });
    expect(short.json().code).toBe("INVALID_BODY");
    const changed = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/password",
      headers: { cookie: here },
      payload: { current_password: OPERATOR_PASSWORD, new_password: "a brand new passphrase" },
    });
    expect(changed.json()).toEqual({ ok: true, sessions_revoked: 1 });
    await expectDead(elsewhere);
    expect((await get("/api/v1/admin/stats", here)).statusCode).toBe(200);
    expect(
      (await loginReply(t.app, { email: "pw@sessions.example", password: OPERATOR_PASSWORD })).statusCode,
    ).toBe(401);
    expect(
      (await loginReply(t.app, { email: "PW@sessions.example", password: "a brand new passphrase" }))
        .statusCode,
    ).toBe(200);
  });

  it("refuses the owner's password change here: ADMIN_PASSWORD lives in the environment", async () => {
    const reply = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/password",
      headers: { cookie: owner },
      payload: { current_password: "whatever it is", new_password: "a brand new passphrase" },
    });
    expect(reply.statusCode).toBe(409);
    expect(reply.json().code).toBe("INVALID_STATE");
  });
});
