import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/query-rows.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCookie, createMerchantViaApi } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import {
  OPERATOR_PASSWORD,
  createOperatorViaApi,
  enrolTotp,
  loginReply,
  operatorCookie,
  totpAt,
} from "../helpers/operators.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";

let t: TestApp;
let owner: string;
beforeAll(async () => {
  t = await createTestApp();
  owner = await adminCookie(t.app);
});
afterAll(async () => {
  await t.close();
});

const now = () => t.clock.now();
/** The next 30-second step: a code of the step just used is refused (no replay). */
const nextStep = () => t.clock.advanceSeconds(30);

describe("TOTP sign-in", () => {
  it("enrols with a secret and an otpauth URI, confirmed by a first code", async () => {
    await createOperatorViaApi(t.app, owner, { email: "enrol@totp.example", role: "admin" });
    const cookie = await operatorCookie(t.app, "enrol@totp.example");
    const setup = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/totp/setup",
      headers: { cookie },
      payload: { current_password: OPERATOR_PASSWORD },
    });
    const { secret, otpauth_url } = setup.json<{ secret: string; otpauth_url: string }>();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/Stablegate:enrol%40totp\.example\?/);
    expect(otpauth_url).toContain(`secret=${secret}`);
    // Starting the setup is audited (who, on which account), never with the secret.
    const setupRows = await queryRows<{ actor_label: string; target_id: string; row: string }>(
      t.ctx.db,
      sql`SELECT actor_label, target_id, row_to_json(audit_log)::text AS row FROM audit_log
          WHERE action = 'operator.totp_setup'`,
    );
    expect(setupRows).toHaveLength(1);
    expect(setupRows[0]?.actor_label).toBe("enrol@totp.example");
    expect(setupRows[0]?.row).not.toContain(secret);
    const wrong = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/totp/confirm",
      headers: { cookie },
      payload: { totp_code: "000000" === totpAt(secret, now()) ? "111111" : "000000" },
    });
    expect(wrong.json().code).toBe("TOTP_INVALID");
    const confirm = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/totp/confirm",
      headers: { cookie },
      payload: { totp_code: totpAt(secret, now()) },
    });
    const codes = confirm.json<{ recovery_codes: string[] }>().recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    // secrets and recovery codes are not stored in the clear
    const dump = JSON.stringify([
      await queryRows(t.ctx.db, sql`SELECT * FROM operators`),
      await queryRows(t.ctx.db, sql`SELECT * FROM operator_recovery_codes`),
    ]);
    expect(dump).not.toContain(secret);
    for (const code of codes) expect(dump).not.toContain(code.replace("-", ""));
  });

  it("asks for a code, refuses a wrong or replayed one, and accepts a fresh one", async () => {
    await createOperatorViaApi(t.app, owner, { email: "login@totp.example", role: "support" });
    const first = await operatorCookie(t.app, "login@totp.example");
    const { secret } = await enrolTotp(t.app, first, now);
    nextStep();
    const missing = await loginReply(t.app, { email: "login@totp.example", password: OPERATOR_PASSWORD });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().code).toBe("TOTP_REQUIRED");
    expect(missing.headers["set-cookie"]).toBeUndefined();
    const wrongPassword = await loginReply(t.app, {
      email: "login@totp.example",
      password: "not the password",
      totp_code: totpAt(secret, now()),
    });
    expect(wrongPassword.json().code).toBe("INVALID_PASSWORD");
    const code = totpAt(secret, now());
    const ok = await loginReply(t.app, {
      email: "login@totp.example",
      password: OPERATOR_PASSWORD,
      totp_code: code,
    });
    expect(ok.statusCode).toBe(200);
    const replay = await loginReply(t.app, {
      email: "login@totp.example",
      password: OPERATOR_PASSWORD,
      totp_code: code,
    });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().code).toBe("TOTP_INVALID");
    nextStep();
    const fresh = await loginReply(t.app, {
      email: "login@totp.example",
      password: OPERATOR_PASSWORD,
      totp_code: totpAt(secret, now()),
    });
    expect(fresh.statusCode).toBe(200);
  });

  it("accepts each recovery code once in place of a TOTP code", async () => {
    await createOperatorViaApi(t.app, owner, { email: "recover@totp.example", role: "viewer" });
    const cookie = await operatorCookie(t.app, "recover@totp.example");
    const { recoveryCodes } = await enrolTotp(t.app, cookie, now);
    const code = recoveryCodes[3] as string;
    const used = await loginReply(t.app, {
      email: "recover@totp.example",
      password: OPERATOR_PASSWORD,
      totp_code: code,
    });
    expect(used.statusCode).toBe(200);
    const again = await loginReply(t.app, {
      email: "recover@totp.example",
      password: OPERATOR_PASSWORD,
      totp_code: code,
    });
    expect(again.json().code).toBe("TOTP_INVALID");
    const me = await t.app.inject({ method: "GET", url: "/api/v1/admin/me", headers: { cookie } });
    expect(me.json().recovery_codes_left).toBe(9);
  });
});

describe("step-up", () => {
  it("asks an enrolled admin for a fresh code to rotate a merchant's key", async () => {
    await createOperatorViaApi(t.app, owner, { email: "rotate@totp.example", role: "admin" });
    const cookie = await operatorCookie(t.app, "rotate@totp.example");
    const merchant = await createMerchantViaApi(t.app, cookie);
    const { secret } = await enrolTotp(t.app, cookie, now);
    const url = `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`;
    const bare = await t.app.inject({ method: "POST", url, headers: { cookie } });
    expect(bare.statusCode).toBe(401);
    expect(bare.json().code).toBe("TOTP_REQUIRED");
    // the code that confirmed the enrolment was consumed: reusing it is a replay
    const replay = await t.app.inject({
      method: "POST",
      url,
      headers: { cookie },
      payload: { totp_code: totpAt(secret, now()) },
    });
    expect(replay.json().code).toBe("TOTP_INVALID");
    nextStep();
    const ok = await t.app.inject({
      method: "POST",
      url,
      headers: { cookie },
      payload: { totp_code: totpAt(secret, now()) },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().api_key).toMatch(/^sg_test_/);
  });

  it("asks the enrolled owner for a fresh code to change a role", async () => {
    const ownerCookie = await adminCookie(t.app);
    const target = await createOperatorViaApi(t.app, ownerCookie, {
      email: "promote@totp.example",
      role: "viewer",
    });
    const { secret } = await enrolTotp(t.app, ownerCookie, now, TEST_ADMIN_PASSWORD);
    const url = `/api/v1/admin/operators/${target.id}`;
    const bare = await t.app.inject({
      method: "PUT",
      url,
      headers: { cookie: ownerCookie },
      payload: { role: "admin" },
    });
    expect(bare.json().code).toBe("TOTP_REQUIRED");
    // renaming is not a step-up action
    const rename = await t.app.inject({
      method: "PUT",
      url,
      headers: { cookie: ownerCookie },
      payload: { name: "Pro" },
    });
    expect(rename.statusCode).toBe(200);
    nextStep();
    const ok = await t.app.inject({
      method: "PUT",
      url,
      headers: { cookie: ownerCookie },
      payload: { role: "admin", totp_code: totpAt(secret, now()) },
    });
    expect(ok.json().role).toBe("admin");
    // the owner's password login now needs a code too
    const login = await loginReply(t.app, { password: TEST_ADMIN_PASSWORD });
    expect(login.json().code).toBe("TOTP_REQUIRED");
    nextStep();
    expect(
      (await loginReply(t.app, { password: TEST_ADMIN_PASSWORD, totp_code: totpAt(secret, now()) }))
        .statusCode,
    ).toBe(200);
    // leave the owner without 2FA for the next test
    nextStep();
    const off = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/totp/disable",
      headers: { cookie: ownerCookie },
      payload: { current_password: TEST_ADMIN_PASSWORD, totp_code: totpAt(secret, now()) },
    });
    expect(off.statusCode).toBe(200);
  });
});

describe("ADMIN_REQUIRE_2FA", () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await createTestApp({ env: { ADMIN_REQUIRE_2FA: "true" } });
  });
  afterAll(async () => {
    await strict.close();
  });

  it("keeps an operator without TOTP to enrolment until they enrol, the owner included", async () => {
    const ownerCookie = await adminCookie(strict.app);
    const stats = await strict.app.inject({
      method: "GET",
      url: "/api/v1/admin/stats",
      headers: { cookie: ownerCookie },
    });
    expect(stats.statusCode).toBe(403);
    expect(stats.json().code).toBe("TOTP_ENROLMENT_REQUIRED");
    const me = await strict.app.inject({
      method: "GET",
      url: "/api/v1/admin/me",
      headers: { cookie: ownerCookie },
    });
    expect(me.json().totp_required).toBe(true);
    const { secret } = await enrolTotp(
      strict.app,
      ownerCookie,
      () => strict.clock.now(),
      TEST_ADMIN_PASSWORD,
    );
    const after = await strict.app.inject({
      method: "GET",
      url: "/api/v1/admin/stats",
      headers: { cookie: ownerCookie },
    });
    expect(after.statusCode).toBe(200);
    strict.clock.advanceSeconds(30);
    const off = await strict.app.inject({
      method: "POST",
      url: "/api/v1/admin/me/totp/disable",
      headers: { cookie: ownerCookie },
      payload: { current_password: TEST_ADMIN_PASSWORD, totp_code: totpAt(secret, strict.clock.now()) },
    });
    expect(off.statusCode).toBe(409);
  });
});
