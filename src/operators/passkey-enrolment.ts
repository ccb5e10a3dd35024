/**
 * One's own passkeys (DESIGN.md 12): registering one needs the current password and, where the
 * operator already has a second factor, a fresh one (like enrolling TOTP); naming one is free;
 * removing one is a step-up action and ends the operator's other sessions, as turning TOTP off does.
 * Under ADMIN_REQUIRE_2FA the last second factor cannot be removed.
 */
import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { and, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import { operatorPasskeys } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { BUILTIN_OWNER_ID, type AdminOperator } from "../admin/operator-types.js";
import { listPasskeys, registerPasskey, registrationOptions, type PasskeyRow } from "../admin/passkeys.js";
import { revokeOperatorSessions } from "../admin/sessions.js";
import { requireStepUp, type SecondFactor } from "../admin/step-up.js";
import { requireReauthentication, type Reauthentication } from "./totp-enrolment.js";

function passkeyNotFound(): AppError {
  return new AppError("NOT_FOUND", "passkey not found");
}

export function ownPasskeys(ctx: Context, operator: AdminOperator): Promise<PasskeyRow[]> {
  return listPasskeys(ctx, ctx.db, operator.id);
}

export async function startPasskeyRegistration(
  ctx: Context,
  operator: AdminOperator,
  proof: Reauthentication,
  origin: AuditOrigin,
): Promise<Awaited<ReturnType<typeof registrationOptions>>> {
  await requireReauthentication(ctx, operator, proof, origin);
  const label = operator.id === BUILTIN_OWNER_ID ? "owner" : operator.email;
  return registrationOptions(ctx, { id: operator.id, label, name: operator.name });
}

/** Stores a passkey whose registration verifies against a challenge of startPasskeyRegistration. */
export async function addPasskey(
  ctx: Context,
  operator: AdminOperator,
  input: { name: string; response: RegistrationResponseJSON },
  origin: AuditOrigin,
): Promise<PasskeyRow> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await registerPasskey(ctx, tx, operator.id, input.name, input.response);
    if (!row) {
      throw new AppError(
        "PASSKEY_INVALID",
        "the passkey registration did not verify: start again from the Security page",
      );
    }
    await appendAudit(tx, {
      ...origin,
      action: "operator.passkey_add",
      targetType: "operator",
      targetId: operator.id,
      after: { passkey_id: row.id, name: row.name },
      at: now,
    });
    return row;
  });
}

export async function renamePasskey(
  ctx: Context,
  operator: AdminOperator,
  id: string,
  name: string,
  origin: AuditOrigin,
): Promise<PasskeyRow> {
  if (!isUuid(id)) throw passkeyNotFound();
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(operatorPasskeys)
      .where(and(eq(operatorPasskeys.id, id), eq(operatorPasskeys.operatorId, operator.id)))
      .for("update");
    if (!before) throw passkeyNotFound();
    const [row] = await tx
      .update(operatorPasskeys)
      .set({ name })
      .where(eq(operatorPasskeys.id, id))
      .returning();
    if (!row) throw passkeyNotFound();
    await appendAudit(tx, {
      ...origin,
      action: "operator.passkey_rename",
      targetType: "operator",
      targetId: operator.id,
      before: { passkey_id: id, name: before.name },
      after: { passkey_id: id, name },
      at: now,
    });
    return row;
  });
}

export async function removePasskey(
  ctx: Context,
  operator: AdminOperator,
  id: string,
  factor: SecondFactor,
  origin: AuditOrigin,
): Promise<{ sessionsRevoked: number }> {
  await requireStepUp(ctx, { operator, ...factor, origin });
  if (!isUuid(id)) throw passkeyNotFound();
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(operatorPasskeys)
      .where(and(eq(operatorPasskeys.id, id), eq(operatorPasskeys.operatorId, operator.id)))
      .returning();
    if (!removed) throw passkeyNotFound();
    const left = await listPasskeys(ctx, tx, operator.id);
    if (ctx.config.adminRequire2fa && !operator.totpEnabled && left.length === 0) {
      throw new AppError(
        "INVALID_STATE",
        "two-factor authentication is required on this deployment (ADMIN_REQUIRE_2FA): this is your last second factor",
      );
    }
    const sessionsRevoked = await revokeOperatorSessions(
      ctx,
      tx,
      operator.id,
      "second_factor_changed",
      operator.sessionId,
    );
    await appendAudit(tx, {
      ...origin,
      action: "operator.passkey_remove",
      targetType: "operator",
      targetId: operator.id,
      before: { passkey_id: id, name: removed.name },
      after: { passkeys: left.length, sessions_revoked: sessionsRevoked },
      at: now,
    });
    return { sessionsRevoked };
  });
}
