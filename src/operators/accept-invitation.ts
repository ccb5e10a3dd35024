/**
 * POST /api/v1/admin/auth/accept-invitation {token, password}: the invited operator sets their
 * password once. The token is single use (its hash is cleared in the same statement that sets the
 * password) and expires after 7 days. The operator then logs in as usual.
 */
import { and, eq, gt } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import { operators } from "../db/schema.js";
import { AppError } from "../errors.js";
import { assertPasswordStrength, hashPassword } from "../admin/passwords.js";
import { operatorLabel } from "../admin/operator-types.js";
import { invitationHash } from "./create-operator.js";

export async function acceptInvitation(
  ctx: Context,
  input: { token: string; password: string; ip: string; userAgent?: string | undefined },
): Promise<{ email: string }> {
  assertPasswordStrength(input.password);
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(operators)
      .set({ passwordHash, invitationHash: null, invitationExpiresAt: null, updatedAt: now })
      .where(
        and(
          eq(operators.invitationHash, invitationHash(input.token)),
          gt(operators.invitationExpiresAt, now),
          eq(operators.isActive, true),
        ),
      )
      .returning();
    if (!row?.email) throw new AppError("NOT_FOUND", "this invitation is unknown, used or expired");
    await appendAudit(tx, {
      actor: { kind: "operator", id: row.id, label: operatorLabel(row) },
      action: "operator.accept_invitation",
      targetType: "operator",
      targetId: row.id,
      after: { password: true },
      ip: input.ip,
      userAgent: input.userAgent,
      at: now,
    });
    return { email: row.email };
  });
}
