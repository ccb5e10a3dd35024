/**
 * A wrong current password on a change of second factors (enrol TOTP, disable it, regenerate
 * recovery codes, register a passkey) counts toward the second-factor lockout (issue 37; DESIGN.md
 * 12): after five, those routes and every step-up answer 429 RATE_LIMITED with Retry-After, the
 * right password and code included, and the lockout is one audit row. PGlite, or PostgreSQL with
 * TEST_DATABASE_URL.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { adminCookie, createMerchantViaApi } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import {
  OPERATOR_PASSWORD,
  createOperatorViaApi,
  enrolTotp,
  operatorCookie,
  totpAt,
} from "../helpers/operators.js";

let t: TestApp;
let owner: string;
beforeAll(async () => {
  t = await createTestApp();
  owner = await adminCookie(t.app);
});
afterAll(() => t.close());

const now = () => t.clock.now();

async function lockouts(operatorId: string): Promise<number> {
  const rows = await queryRows<{ n: string }>(
    t.ctx.db,
    sql`SELECT count(*)::text AS n FROM audit_log WHERE target_id = ${operatorId}
          AND action = 'operator.second_factor_locked'`,
  );
  return Number(rows[0]?.n ?? 0);
}

const post = (cookie: string, url: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: "POST", url, headers: { cookie }, payload });

describe("a wrong current password on a second-factor change", () => {
  it("counts toward the lockout: five lock every change and step-up, the right password and code included", async () => {
    const operator = await createOperatorViaApi(t.app, owner, { email: "pw@lock.example", role: "admin" });
    const cookie = await operatorCookie(t.app, "pw@lock.example");
    const merchant = await createMerchantViaApi(t.app, cookie);
    const { secret } = await enrolTotp(t.app, cookie, now);
    t.clock.advanceSeconds(30);
    const routes = [
      "/api/v1/admin/me/totp/disable",
      "/api/v1/admin/me/recovery-codes",
      "/api/v1/admin/me/passkeys/registration-options",
      "/api/v1/admin/me/totp/disable",
      "/api/v1/admin/me/recovery-codes",
    ];
    for (const url of routes) {
      const wrong = await post(cookie, url, {
        current_password: "guessed",
        totp_code: totpAt(secret, now()),
      });
      expect(wrong.json().code, url).toBe("INVALID_PASSWORD");
    }
    expect(await lockouts(operator.id)).toBe(1);
    const right = await post(cookie, "/api/v1/admin/me/recovery-codes", {
      current_password: OPERATOR_PASSWORD,
      totp_code: totpAt(secret, now()),
    });
    expect(right.statusCode).toBe(429);
    expect(right.json().code).toBe("RATE_LIMITED");
    expect(Number(right.headers["retry-after"])).toBeGreaterThan(0);
    const stepUp = await post(cookie, `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`, {
      totp_code: totpAt(secret, now()),
    });
    expect(stepUp.json().code).toBe("RATE_LIMITED");
    // A guess while locked is refused before the password is looked at, and not counted again.
    const whileLocked = await post(cookie, "/api/v1/admin/me/totp/disable", { current_password: "guessed" });
    expect(whileLocked.json().code).toBe("RATE_LIMITED");
    expect(await lockouts(operator.id)).toBe(1);
  });

  it("counts for an operator enrolling a first authenticator too", async () => {
    const operator = await createOperatorViaApi(t.app, owner, { email: "pw2@lock.example", role: "support" });
    const cookie = await operatorCookie(t.app, "pw2@lock.example");
    for (let i = 0; i < 5; i++) {
      const wrong = await post(cookie, "/api/v1/admin/me/totp/setup", { current_password: `guess-${i}` });
      expect(wrong.json().code).toBe("INVALID_PASSWORD");
    }
    const right = await post(cookie, "/api/v1/admin/me/totp/setup", { current_password: OPERATOR_PASSWORD });
    expect(right.json().code).toBe("RATE_LIMITED");
    expect(await lockouts(operator.id)).toBe(1);
  });
});
