/**
 * Step-up (DESIGN.md 12): an action that can move money or grant access asks the acting operator for
 * a fresh second factor in the request: `totp_code` (a code of their authenticator app) or `passkey`
 * (a WebAuthn assertion over a step-up challenge). Step-up actions: approving or rejecting a refund
 * or payout, rotating a merchant key, creating, re-enabling or changing the role of an operator,
 * resetting an operator's 2FA, unlocking an operator's second factor, enabling the house account,
 * removing a passkey.
 *
 * Money out (approve, reject) takes a second factor always: an operator without one is refused with
 * SECOND_FACTOR_REQUIRED, whatever ADMIN_REQUIRE_2FA says. The other step-up actions ask it of every
 * operator who has one (and, with ADMIN_REQUIRE_2FA, of everyone).
 *
 * Wrong factors, and wrong current passwords on a change of second factors, count toward the lockout
 * shared with the login (factor-lockout.ts); while locked,
 * every step-up answers RATE_LIMITED, a correct factor included. A TOTP step is consumed even when
 * the action then fails.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import { operators } from "../db/schema.js";
import { AppError } from "../errors.js";
import { assertFactorNotLocked, recordFactorFailure } from "./factor-lockout.js";
import type { AdminOperator } from "./operator-types.js";
import { hasPasskey, verifyPasskeyAssertion } from "./passkeys.js";
import { verifyPassword } from "./passwords.js";
import { consumeTotpCode } from "./totp.js";

/** What a request carried as its second factor (both undefined when it sent none). */
export interface SecondFactor {
  totpCode?: string | undefined;
  passkey?: unknown;
}

/** The acting operator, the factor its request carried, and where it came from (for the lockout). */
export interface StepUp extends SecondFactor {
  operator: Pick<AdminOperator, "id" | "totpEnabled">;
  origin: AuditOrigin;
}

export interface StepUpPolicy {
  /** Money out: refuse an operator who has no second factor at all. */
  always?: boolean;
}

export async function hasSecondFactor(
  ctx: Context,
  operator: Pick<AdminOperator, "id" | "totpEnabled">,
): Promise<boolean> {
  return operator.totpEnabled || (await hasPasskey(ctx.db, operator.id));
}

export async function requireStepUp(ctx: Context, stepUp: StepUp, policy: StepUpPolicy = {}): Promise<void> {
  const { operator } = stepUp;
  if (!(await hasSecondFactor(ctx, operator))) {
    if (policy.always) {
      throw new AppError(
        "SECOND_FACTOR_REQUIRED",
        "approving or rejecting money out needs a second factor: add an authenticator app or a passkey on the Security page",
      );
    }
    // Unreachable through the API while ADMIN_REQUIRE_2FA is on (the session hook keeps an
    // unenrolled operator to enrolment); kept so a caller elsewhere cannot skip the factor.
    if (ctx.config.adminRequire2fa) {
      throw new AppError("TOTP_REQUIRED", "enrol a second factor first (ADMIN_REQUIRE_2FA)");
    }
    return;
  }
  await assertFactorNotLocked(ctx, ctx.db, operator.id);
  const code = stepUp.totpCode?.trim() ?? "";
  if (stepUp.passkey === undefined && code === "") {
    throw new AppError(
      "TOTP_REQUIRED",
      "this action needs a fresh second factor: a code from your authenticator (totp_code) or a passkey",
    );
  }
  const accepted =
    stepUp.passkey !== undefined
      ? await verifyPasskeyAssertion(ctx, ctx.db, operator.id, "step_up", stepUp.passkey)
      : await consumeTotpCode(ctx, ctx.db, operator.id, code);
  if (accepted) return;
  await recordFactorFailure(
    ctx,
    { id: operator.id, label: labelOf(stepUp.origin) },
    "step_up",
    stepUp.origin,
  );
  if (stepUp.passkey !== undefined) {
    throw new AppError(
      "PASSKEY_INVALID",
      "the passkey was not accepted: unknown, removed, or its challenge is stale",
    );
  }
  throw new AppError("TOTP_INVALID", "the authenticator code is wrong or was already used");
}

function labelOf(origin: AuditOrigin): string {
  return origin.actor.label;
}

/**
 * The operator's current password (DESIGN.md 12: changing a second factor needs it, so a stolen
 * cookie alone cannot). The built-in owner's is ADMIN_PASSWORD, compared in constant time. A wrong
 * one counts toward the second-factor lockout, and a locked operator is refused before the password
 * is looked at, so a stolen cookie cannot guess it either.
 */
export async function requireCurrentPassword(
  ctx: Context,
  operatorId: string,
  password: string,
  origin: AuditOrigin,
): Promise<void> {
  await assertFactorNotLocked(ctx, ctx.db, operatorId);
  const [row] = await ctx.db
    .select({ isBuiltin: operators.isBuiltin, passwordHash: operators.passwordHash })
    .from(operators)
    .where(eq(operators.id, operatorId));
  const ok =
    row !== undefined &&
    (row.isBuiltin
      ? timingSafeEqual(digest(password), digest(ctx.config.adminPassword))
      : await verifyPassword(row.passwordHash, password));
  if (ok) return;
  await recordFactorFailure(ctx, { id: operatorId, label: labelOf(origin) }, "password", origin);
  throw new AppError("INVALID_PASSWORD", "the current password is wrong");
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
