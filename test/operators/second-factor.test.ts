/**
 * Controls no single person can talk around (DESIGN.md 12): the lockout after 5 wrong second
 * factors (shared by login and step-up, counted in the database so every replica sees it), step-up
 * on operator and house-account changes, the current password for 2FA changes, and passkeys as a
 * second factor (a software authenticator over the real API). PGlite, or PostgreSQL with
 * TEST_DATABASE_URL.
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app.js";
import { queryRows } from "../../src/db/query-rows.js";
import { HOUSE_MERCHANT_ID } from "../../src/payouts/house-account.js";
import { ensureHouseAccount } from "../../src/payouts/house-account.js";
import { adminCookie, createMerchantViaApi } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import {
  OPERATOR_PASSWORD,
  cookieOf,
  createOperatorViaApi,
  enrolTotp,
  loginReply,
  operatorCookie,
  totpAt,
} from "../helpers/operators.js";
import { registerSoftwarePasskey, SoftwarePasskey, stepUpPasskey } from "../helpers/software-passkey.js";

let t: TestApp;
let replica: FastifyInstance;
let owner: string;
beforeAll(async () => {
  t = await createTestApp();
  // A second API replica on the same database and clock: the lockout must hold across both.
  replica = await buildApp(t.ctx);
  await replica.ready();
  owner = await adminCookie(t.app);
});
afterAll(async () => {
  await replica.close();
  await t.close();
});

const now = () => t.clock.now();
const nextStep = () => t.clock.advanceSeconds(30);
const origin = () => t.ctx.config.publicBaseUrl;

function wrongCode(secret: string): string {
  const right = totpAt(secret, now());
  return right === "000000" ? "111111" : "000000";
}

async function auditActions(targetId: string, action: string): Promise<number> {
  const rows = await queryRows<{ n: string }>(
    t.ctx.db,
    sql`SELECT count(*)::text AS n FROM audit_log WHERE target_id = ${targetId} AND action = ${action}`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** An admin with TOTP and a merchant of theirs whose key rotation is the step-up under test. */
async function enrolledAdmin(email: string) {
  const operator = await createOperatorViaApi(t.app, owner, { email, role: "admin" });
  const cookie = await operatorCookie(t.app, email);
  const merchant = await createMerchantViaApi(t.app, cookie);
  const { secret } = await enrolTotp(t.app, cookie, now);
  nextStep();
  return { operator, cookie, merchant, secret };
}

describe("second-factor lockout", () => {
  it("locks step-ups and second-factor logins after 5 wrong codes, across replicas, a correct code included", async () => {
    const { operator, cookie, merchant, secret } = await enrolledAdmin("guess@lock.example");
    const rotate = (app: FastifyInstance, code: string) =>
      app.inject({
        method: "POST",
        url: `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`,
        headers: { cookie },
        payload: { totp_code: code },
      });
    // Wrong codes alternate between the two replicas and the login's TOTP step: one count.
    for (const app of [t.app, replica, t.app]) {
      const reply = await rotate(app, wrongCode(secret));
      expect(reply.json().code).toBe("TOTP_INVALID");
    }
    const wrongLogin = await loginReply(t.app, {
      email: "guess@lock.example",
      password: OPERATOR_PASSWORD,
      totp_code: wrongCode(secret),
    });
    expect(wrongLogin.json().code).toBe("TOTP_INVALID");
    expect(await auditActions(operator.id, "operator.second_factor_locked")).toBe(0);
    const fifth = await rotate(replica, wrongCode(secret));
    expect(fifth.json().code).toBe("TOTP_INVALID");

    // Locked: the right code is refused on both replicas, and so is the login's second step.
    const right = await rotate(t.app, totpAt(secret, now()));
    expect(right.statusCode).toBe(429);
    expect(right.json().code).toBe("RATE_LIMITED");
    expect(Number(right.headers["retry-after"])).toBeGreaterThan(14 * 60);
    expect(Number(right.headers["retry-after"])).toBeLessThanOrEqual(15 * 60);
    expect((await rotate(replica, totpAt(secret, now()))).statusCode).toBe(429);
    const login = await loginReply(t.app, {
      email: "guess@lock.example",
      password: OPERATOR_PASSWORD,
      totp_code: totpAt(secret, now()),
    });
    expect(login.statusCode).toBe(429);
    expect(login.headers["set-cookie"]).toBeUndefined();
    // The refused attempts did not consume the code's step: it still works once the lock ends.

    // One audit row and one operator alert for the lockout.
    expect(await auditActions(operator.id, "operator.second_factor_locked")).toBe(1);
    const alerts = await queryRows<{ alert: string; text: string }>(
      t.ctx.db,
      sql`SELECT alert, text FROM alerts WHERE alert = 'second_factor_locked'`,
    );
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.text).toContain("guess@lock.example");
    expect(alerts[0]?.text).not.toContain(secret);
    const me = await t.app.inject({ method: "GET", url: "/api/v1/admin/me", headers: { cookie } });
    expect(me.json().second_factor_locked_until).not.toBeNull();

    // 15 minutes after the code that locked it, a fresh code works again.
    t.clock.advanceSeconds(15 * 60 + 1);
    const after = await rotate(t.app, totpAt(secret, now()));
    expect(after.statusCode, after.body).toBe(200);
  });

  it("lets the owner unlock an operator at once, audited, but never themself", async () => {
    const { operator, cookie, merchant, secret } = await enrolledAdmin("unlock@lock.example");
    const url = `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`;
    for (let i = 0; i < 5; i++) {
      await t.app.inject({
        method: "POST",
        url,
        headers: { cookie },
        payload: { totp_code: wrongCode(secret) },
      });
    }
    const locked = await t.app.inject({
      method: "POST",
      url,
      headers: { cookie },
      payload: { totp_code: totpAt(secret, now()) },
    });
    expect(locked.statusCode).toBe(429);
    const list = await t.app.inject({
      method: "GET",
      url: "/api/v1/admin/operators",
      headers: { cookie: owner },
    });
    const row = list.json().data.find((o: { id: string }) => o.id === operator.id);
    expect(row.second_factor_locked_until).not.toBeNull();
    // An admin cannot unlock (owner only), nobody unlocks themself.
    const byAdmin = await t.app.inject({
      method: "POST",
      url: `/api/v1/admin/operators/${operator.id}/unlock-second-factor`,
      headers: { cookie },
    });
    expect(byAdmin.statusCode).toBe(403);
    const self = await t.app.inject({
      method: "POST",
      url: `/api/v1/admin/operators/00000000-0000-4000-8000-000000000001/unlock-second-factor`,
      headers: { cookie: owner },
    });
    expect(self.json().code).toBe("INVALID_STATE");
    const unlock = await t.app.inject({
      method: "POST",
      url: `/api/v1/admin/operators/${operator.id}/unlock-second-factor`,
      headers: { cookie: owner },
    });
    expect(unlock.json()).toEqual({ ok: true, was_locked: true });
    expect(await auditActions(operator.id, "operator.second_factor_unlock")).toBe(1);
    const ok = await t.app.inject({
      method: "POST",
      url,
      headers: { cookie },
      payload: { totp_code: totpAt(secret, now()) },
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});

describe("changing a second factor", () => {
  it("needs the current password and a current code, and turning TOTP off ends the other sessions", async () => {
    await createOperatorViaApi(t.app, owner, { email: "change@factor.example", role: "support" });
    const cookie = await operatorCookie(t.app, "change@factor.example");
    // a stolen cookie alone cannot add an authenticator
    const noPassword = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/totp/setup",
      headers: { cookie },
      payload: { current_password: "not the password" },
    });
    expect(noPassword.json().code).toBe("INVALID_PASSWORD");
    const { secret } = await enrolTotp(t.app, cookie, now);
    nextStep();
    const other = cookieOf(
      await loginReply(t.app, {
        email: "change@factor.example",
        password: OPERATOR_PASSWORD,
        totp_code: totpAt(secret, now()),
      }),
    );
    nextStep();
    for (const url of ["/api/v1/admin/me/recovery-codes", "/api/v1/admin/me/totp/disable"]) {
      const codeOnly = await t.app.inject({
        method: "POST",
        url,
        headers: { cookie },
        payload: { totp_code: totpAt(secret, now()) },
      });
      expect(codeOnly.statusCode, url).toBe(400);
      const passwordOnly = await t.app.inject({
        method: "POST",
        url,
        headers: { cookie },
        payload: { current_password: OPERATOR_PASSWORD },
      });
      expect(passwordOnly.json().code, url).toBe("TOTP_REQUIRED");
    }
    const off = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/totp/disable",
      headers: { cookie },
      payload: { current_password: OPERATOR_PASSWORD, totp_code: totpAt(secret, now()) },
    });
    expect(off.json()).toEqual({ ok: true, sessions_revoked: 1 });
    const otherNow = await t.app.inject({
      method: "GET",
      url: "/api/v1/admin/me",
      headers: { cookie: other },
    });
    expect(otherNow.statusCode).toBe(401);
    const mine = await t.app.inject({ method: "GET", url: "/api/v1/admin/me", headers: { cookie } });
    expect(mine.json().totp_enabled).toBe(false);
  });
});

describe("passkeys", () => {
  it("registers, names and lists a passkey, signs in with it, and steps up with it", async () => {
    await createOperatorViaApi(t.app, owner, { email: "key@passkey.example", role: "admin" });
    const cookie = await operatorCookie(t.app, "key@passkey.example");
    const merchant = await createMerchantViaApi(t.app, cookie);
    const key = await registerSoftwarePasskey(t.app, cookie, origin(), {
      currentPassword: OPERATOR_PASSWORD,
    });
    const list = await t.app.inject({ method: "GET", url: "/api/v1/admin/me/passkeys", headers: { cookie } });
    const [stored] = list.json().data as { id: string; name: string }[];
    expect(stored?.name).toBe("test key");
    const renamed = await t.app.inject({
      method: "PATCH",
      url: `/api/v1/admin/me/passkeys/${stored?.id}`,
      headers: { cookie },
      payload: { name: "Laptop" },
    });
    expect(renamed.json().name).toBe("Laptop");

    // sign-in: the password alone is not enough any more
    const bare = await loginReply(t.app, { email: "key@passkey.example", password: OPERATOR_PASSWORD });
    expect(bare.json().code).toBe("TOTP_REQUIRED");
    const options = await t.app.inject({ method: "POST", url: "/api/v1/admin/auth/passkey-options" });
    const assertion = key.assert(options.json().challenge);
    const login = await loginReply(t.app, {
      email: "key@passkey.example",
      password: OPERATOR_PASSWORD,
      passkey: assertion,
    });
    expect(login.statusCode, login.body).toBe(200);
    // the same assertion again is a replay
    const replay = await loginReply(t.app, {
      email: "key@passkey.example",
      password: OPERATOR_PASSWORD,
      passkey: assertion,
    });
    expect(replay.json().code).toBe("PASSKEY_INVALID");
    // an assertion made for another origin (a phishing page) is refused
    const phished = await loginReply(t.app, {
      email: "key@passkey.example",
      password: OPERATOR_PASSWORD,
      passkey: key.assert(
        (await t.app.inject({ method: "POST", url: "/api/v1/admin/auth/passkey-options" })).json().challenge,
        { origin: "https://stablegate.example.evil" },
      ),
    });
    expect(phished.json().code).toBe("PASSKEY_INVALID");
    // a sign-in challenge is not a step-up challenge
    const rotateUrl = `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`;
    const wrongPurpose = await t.app.inject({
      method: "POST",
      url: rotateUrl,
      headers: { cookie },
      payload: {
        passkey: key.assert(
          (await t.app.inject({ method: "POST", url: "/api/v1/admin/auth/passkey-options" })).json()
            .challenge,
        ),
      },
    });
    expect(wrongPurpose.json().code).toBe("PASSKEY_INVALID");
    const stepUp = await t.app.inject({
      method: "POST",
      url: rotateUrl,
      headers: { cookie },
      payload: { passkey: await stepUpPasskey(t.app, cookie, key) },
    });
    expect(stepUp.statusCode, stepUp.body).toBe(200);
  });

  it("removes a passkey only with a step-up, and a removed passkey is refused", async () => {
    await createOperatorViaApi(t.app, owner, { email: "remove@passkey.example", role: "admin" });
    const cookie = await operatorCookie(t.app, "remove@passkey.example");
    const first = await registerSoftwarePasskey(t.app, cookie, origin(), {
      currentPassword: OPERATOR_PASSWORD,
    });
    // a second key needs the first as the current factor
    const second = await registerSoftwarePasskey(t.app, cookie, origin(), {
      currentPassword: OPERATOR_PASSWORD,
      passkey: await stepUpPasskey(t.app, cookie, first),
    });
    const keys = (
      await t.app.inject({ method: "GET", url: "/api/v1/admin/me/passkeys", headers: { cookie } })
    ).json().data as { id: string }[];
    expect(keys).toHaveLength(2);
    const url = `/api/v1/admin/me/passkeys/${keys[0]?.id}`;
    const bare = await t.app.inject({ method: "DELETE", url, headers: { cookie } });
    expect(bare.json().code).toBe("TOTP_REQUIRED");
    const removed = await t.app.inject({
      method: "DELETE",
      url,
      headers: { cookie },
      payload: { passkey: await stepUpPasskey(t.app, cookie, second) },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    const options = await t.app.inject({ method: "POST", url: "/api/v1/admin/auth/passkey-options" });
    const refused = await loginReply(t.app, {
      email: "remove@passkey.example",
      password: OPERATOR_PASSWORD,
      passkey: first.assert(options.json().challenge),
    });
    expect(refused.json().code).toBe("PASSKEY_INVALID");
    // someone else's passkey never counts for this operator
    const stranger = new SoftwarePasskey(origin());
    const foreign = await loginReply(t.app, {
      email: "remove@passkey.example",
      password: OPERATOR_PASSWORD,
      passkey: stranger.assert(
        (await t.app.inject({ method: "POST", url: "/api/v1/admin/auth/passkey-options" })).json().challenge,
      ),
    });
    expect(foreign.json().code).toBe("PASSKEY_INVALID");
    const ok = await loginReply(t.app, {
      email: "remove@passkey.example",
      password: OPERATOR_PASSWORD,
      passkey: second.assert(
        (await t.app.inject({ method: "POST", url: "/api/v1/admin/auth/passkey-options" })).json().challenge,
      ),
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});

// Last: the owner enrols TOTP here, so every later operator creation would need a code.
describe("step-up actions", () => {
  it("asks an enrolled owner for a factor to create, re-enable, promote or unlock an operator and to enable the house account", async () => {
    const cookie = owner;
    const target = await createOperatorViaApi(t.app, cookie, { email: "later@step.example", role: "viewer" });
    await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/operators/${target.id}`,
      headers: { cookie },
      payload: { is_active: false },
    });
    const { secret } = await enrolTotp(t.app, cookie, now, TEST_ADMIN_PASSWORD);
    nextStep();
    await t.ctx.db.transaction((tx) => ensureHouseAccount(t.ctx, tx));
    const calls = [
      {
        method: "POST" as const,
        url: "/api/v1/admin/operators",
        payload: { email: "new@step.example", name: "New", role: "admin", password: OPERATOR_PASSWORD },
      },
      { method: "PUT" as const, url: `/api/v1/admin/operators/${target.id}`, payload: { is_active: true } },
      { method: "PUT" as const, url: `/api/v1/admin/operators/${target.id}`, payload: { role: "admin" } },
      {
        method: "PUT" as const,
        url: `/api/v1/admin/merchants/${HOUSE_MERCHANT_ID}`,
        payload: { is_active: true },
      },
      {
        method: "POST" as const,
        url: `/api/v1/admin/operators/${target.id}/unlock-second-factor`,
        payload: {},
      },
    ];
    const snapshot = () =>
      queryRows<{ email: string | null; is_active: boolean; role: string }>(
        t.ctx.db,
        sql`SELECT email, is_active, role FROM operators WHERE email LIKE '%@step.example' ORDER BY email`,
      );
    for (const call of calls) {
      const bare = await t.app.inject({ ...call, headers: { cookie } });
      expect(bare.json().code, `${call.method} ${call.url}`).toBe("TOTP_REQUIRED");
    }
    // nothing changed
    expect(await snapshot()).toEqual([{ email: "later@step.example", is_active: false, role: "viewer" }]);
    for (const call of calls) {
      nextStep();
      const ok = await t.app.inject({
        ...call,
        headers: { cookie },
        payload: { ...call.payload, totp_code: totpAt(secret, now()) },
      });
      expect(ok.statusCode, `${call.url}: ${ok.body}`).toBeLessThan(300);
    }
    expect(await snapshot()).toEqual([
      { email: "later@step.example", is_active: true, role: "admin" },
      { email: "new@step.example", is_active: true, role: "admin" },
    ]);
    const house = await queryRows<{ is_active: boolean }>(
      t.ctx.db,
      sql`SELECT is_active FROM merchants WHERE id = ${HOUSE_MERCHANT_ID}`,
    );
    expect(house[0]?.is_active).toBe(true);
  });
});
