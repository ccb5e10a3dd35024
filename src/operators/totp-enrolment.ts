/**
 * TOTP enrolment of one's own account (DESIGN.md 12): setup hands out a secret and its otpauth://
 * URI (kept encrypted as pending); the first valid code confirms it, turns 2FA on and hands out ten
 * recovery codes. Starting an enrolment, disabling TOTP and new recovery codes need the current
 * password and, where the operator has a second factor, a fresh one (DESIGN.md 12), so a stolen
 * cookie alone can neither add an authenticator nor remove one. Disabling ends the operator's other
 * sessions. The owner can reset the second factors of an operator who lost their device (TOTP and
 * passkeys; their sessions end with it).
 */
import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import type { Executor } from "../db/connection.js";
import { operatorPasskeys, operatorRecoveryCodes, operators } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { BUILTIN_OWNER_ID, type AdminOperator } from "../admin/operator-types.js";
import { issueRecoveryCodes } from "../admin/recovery-codes.js";
import { revokeOperatorSessions } from "../admin/sessions.js";
import {
  hasSecondFactor,
  requireCurrentPassword,
  requireStepUp,
  type SecondFactor,
  type StepUp,
} from "../admin/step-up.js";
import { decryptTotpSecret, encryptTotpSecret, matchTotp, newTotpSecret, totpUri } from "../admin/totp.js";
import { operatorNotFound } from "./update-operator.js";

export interface TotpSetup {
  secret: string;
  otpauthUrl: string;
}

function invalidCode(): AppError {
  return new AppError("TOTP_INVALID", "the authenticator code is wrong or was already used");
}

/** The proof a change of one's second factors needs: the current password and a current factor. */
export interface Reauthentication extends SecondFactor {
  currentPassword: string;
}

/**
 * Checks the current password, then (when the operator has a second factor) a fresh one; a wrong
 * factor counts toward the lockout like any step-up.
 */
export async function requireReauthentication(
  ctx: Context,
  operator: AdminOperator,
  proof: Reauthentication,
  origin: AuditOrigin,
): Promise<void> {
  await requireCurrentPassword(ctx, operator.id, proof.currentPassword, origin);
  if (await hasSecondFactor(ctx, operator)) {
    await requireStepUp(ctx, { operator, totpCode: proof.totpCode, passkey: proof.passkey, origin });
  }
}

export async function startTotpEnrolment(
  ctx: Context,
  operator: AdminOperator,
  proof: Reauthentication,
  origin: AuditOrigin,
): Promise<TotpSetup> {
  if (operator.totpEnabled) {
    throw new AppError("INVALID_STATE", "two-factor authentication is already on; disable it first");
  }
  await requireReauthentication(ctx, operator, proof, origin);
  const secret = newTotpSecret();
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(operators)
      .set({
        totpPendingSecretEnc: encryptTotpSecret(ctx.config.sessionSecret, secret),
        updatedAt: now,
      })
      .where(eq(operators.id, operator.id));
    // The pending secret is a change of the account: audited, the secret itself never.
    await appendAudit(tx, {
      ...origin,
      action: "operator.totp_setup",
      targetType: "operator",
      targetId: operator.id,
      after: { totp_pending: true },
      at: now,
    });
  });
  const account = operator.id === BUILTIN_OWNER_ID ? "owner" : operator.email;
  return { secret, otpauthUrl: totpUri(secret, account) };
}

export async function confirmTotpEnrolment(
  ctx: Context,
  operator: AdminOperator,
  code: string,
  origin: AuditOrigin,
): Promise<{ recoveryCodes: string[] }> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.select().from(operators).where(eq(operators.id, operator.id)).for("update");
    if (!row) throw operatorNotFound();
    if (row.totpEnabled) throw new AppError("INVALID_STATE", "two-factor authentication is already on");
    if (row.totpPendingSecretEnc === null) {
      throw new AppError("INVALID_STATE", "start the enrolment first (POST /api/v1/admin/me/totp/setup)");
    }
    const pending = decryptTotpSecret(ctx.config.sessionSecret, row.totpPendingSecretEnc);
    const step = matchTotp(pending, code, now, row.totpLastStep);
    if (step === null) throw invalidCode();
    await tx
      .update(operators)
      .set({
        totpSecretEnc: row.totpPendingSecretEnc,
        totpPendingSecretEnc: null,
        totpEnabled: true,
        totpLastStep: step,
        updatedAt: now,
      })
      .where(eq(operators.id, row.id));
    const recoveryCodes = await issueRecoveryCodes(ctx, tx, row.id);
    await appendAudit(tx, {
      ...origin,
      action: "operator.totp_enable",
      targetType: "operator",
      targetId: row.id,
      before: { totp_enabled: false },
      after: { totp_enabled: true, recovery_codes: recoveryCodes.length },
      at: now,
    });
    return { recoveryCodes };
  });
}

export async function disableTotp(
  ctx: Context,
  operator: AdminOperator,
  proof: Reauthentication,
  origin: AuditOrigin,
): Promise<{ sessionsRevoked: number }> {
  if (ctx.config.adminRequire2fa && !operator.hasPasskey) {
    throw new AppError(
      "INVALID_STATE",
      "two-factor authentication is required on this deployment (ADMIN_REQUIRE_2FA): add a passkey before turning TOTP off",
    );
  }
  if (!operator.totpEnabled) throw new AppError("INVALID_STATE", "two-factor authentication is not on");
  await requireReauthentication(ctx, operator, proof, origin);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    await clearTotp(tx, operator.id, now);
    const sessionsRevoked = await revokeOperatorSessions(
      ctx,
      tx,
      operator.id,
      "second_factor_changed",
      operator.sessionId,
    );
    await appendAudit(tx, {
      ...origin,
      action: "operator.totp_disable",
      targetType: "operator",
      targetId: operator.id,
      before: { totp_enabled: true },
      after: { totp_enabled: false, sessions_revoked: sessionsRevoked },
      at: now,
    });
    return { sessionsRevoked };
  });
}

export async function regenerateRecoveryCodes(
  ctx: Context,
  operator: AdminOperator,
  proof: Reauthentication,
  origin: AuditOrigin,
): Promise<{ recoveryCodes: string[] }> {
  if (!operator.totpEnabled) throw new AppError("INVALID_STATE", "two-factor authentication is not on");
  await requireReauthentication(ctx, operator, proof, origin);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const recoveryCodes = await issueRecoveryCodes(ctx, tx, operator.id);
    await appendAudit(tx, {
      ...origin,
      action: "operator.recovery_codes_regenerate",
      targetType: "operator",
      targetId: operator.id,
      after: { recovery_codes: recoveryCodes.length },
      at: now,
    });
    return { recoveryCodes };
  });
}

/**
 * The owner removes another operator's second factors (TOTP and passkeys: a lost device); their
 * sessions end with it. Needs the owner's current password and a fresh factor (DESIGN.md 12).
 */
export async function resetOperatorTotp(
  ctx: Context,
  operatorId: string,
  stepUp: StepUp & { operator: AdminOperator; currentPassword: string },
): Promise<void> {
  const origin = stepUp.origin;
  await requireReauthentication(ctx, stepUp.operator, stepUp, origin);
  if (!isUuid(operatorId)) throw operatorNotFound();
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx.select().from(operators).where(eq(operators.id, operatorId)).for("update");
    if (!row) throw operatorNotFound();
    const passkeys = await tx
      .delete(operatorPasskeys)
      .where(eq(operatorPasskeys.operatorId, row.id))
      .returning({ id: operatorPasskeys.id });
    if (!row.totpEnabled && passkeys.length === 0)
      throw new AppError("INVALID_STATE", "this operator has no two-factor authentication");
    await clearTotp(tx, row.id, now);
    const revoked = await revokeOperatorSessions(ctx, tx, row.id, "revoked");
    await appendAudit(tx, {
      ...origin,
      action: "operator.totp_reset",
      targetType: "operator",
      targetId: row.id,
      before: { totp_enabled: row.totpEnabled, passkeys: passkeys.length },
      after: { totp_enabled: false, passkeys: 0, sessions_revoked: revoked },
      at: now,
    });
  });
}

async function clearTotp(tx: Executor, operatorId: string, now: Date): Promise<void> {
  await tx
    .update(operators)
    .set({ totpSecretEnc: null, totpPendingSecretEnc: null, totpEnabled: false, updatedAt: now })
    .where(eq(operators.id, operatorId));
  await tx.delete(operatorRecoveryCodes).where(eq(operatorRecoveryCodes.operatorId, operatorId));
}
