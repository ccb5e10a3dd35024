/**
 * An operator changes their own password (DESIGN.md 12): the current one is checked, the new one
 * hashed with argon2id, and every other session of theirs is revoked in the same transaction (the
 * one making the change stays signed in). The built-in owner's password is ADMIN_PASSWORD, changed
 * in the deployment's environment, which ends all owner sessions.
 */
import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import { operators } from "../db/schema.js";
import { AppError } from "../errors.js";
import type { AdminOperator } from "../admin/operator-types.js";
import { assertPasswordStrength, hashPassword, verifyPassword } from "../admin/passwords.js";
import { revokeOperatorSessions } from "../admin/sessions.js";

export async function changePassword(
  ctx: Context,
  operator: AdminOperator,
  input: { currentPassword: string; newPassword: string },
  origin: AuditOrigin,
): Promise<{ sessionsRevoked: number }> {
  const [row] = await ctx.db.select().from(operators).where(eq(operators.id, operator.id));
  if (!row) throw new AppError("ADMIN_TOKEN_INVALID", "admin session is invalid or expired; log in again");
  if (row.isBuiltin) {
    throw new AppError(
      "INVALID_STATE",
      "the built-in owner's password is ADMIN_PASSWORD: change it in the deployment's environment",
    );
  }
  if (!(await verifyPassword(row.passwordHash, input.currentPassword))) {
    throw new AppError("INVALID_PASSWORD", "the current password is wrong");
  }
  assertPasswordStrength(input.newPassword);
  const passwordHash = await hashPassword(input.newPassword);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    await tx.update(operators).set({ passwordHash, updatedAt: now }).where(eq(operators.id, row.id));
    const sessionsRevoked = await revokeOperatorSessions(
      ctx,
      tx,
      row.id,
      "password_changed",
      operator.sessionId,
    );
    await appendAudit(tx, {
      ...origin,
      action: "operator.change_password",
      targetType: "operator",
      targetId: row.id,
      after: { password: true, sessions_revoked: sessionsRevoked },
      at: now,
    });
    return { sessionsRevoked };
  });
}
