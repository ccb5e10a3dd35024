/**
 * DELETE /api/v1/admin/sessions/:id: an operator ends one of their own sessions; an operator whose
 * role has `sessions.manage` (the owner) ends anyone's. Someone else's session answers 404 to
 * everyone else, as if it did not exist.
 */
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import { AppError } from "../errors.js";
import type { AdminOperator } from "../admin/operator-types.js";
import { roleAllows } from "../admin/permissions.js";
import { findSession, revokeSession } from "../admin/sessions.js";

export async function revokeOperatorSession(
  ctx: Context,
  operator: AdminOperator,
  sessionId: string,
  origin: AuditOrigin,
): Promise<void> {
  const session = await findSession(ctx, sessionId);
  const mayRevoke =
    session !== undefined &&
    (session.operatorId === operator.id || roleAllows(operator.role, "sessions.manage"));
  if (!session || !mayRevoke) throw new AppError("NOT_FOUND", "session not found");
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    if (!(await revokeSession(ctx, tx, session.id, "revoked"))) return;
    await appendAudit(tx, {
      ...origin,
      action: "session.revoke",
      targetType: "session",
      targetId: session.id,
      after: { operator_id: session.operatorId },
      at: now,
    });
  });
}
