/**
 * The owner changes an operator's name or role, or disables / re-enables the account (DESIGN.md 12).
 * A role change or a disable revokes that operator's sessions in the same transaction, so the new
 * rights (or none) apply from their next request. Changing a role and re-enabling an account are
 * step-up actions. The built-in
 * owner is ADMIN_PASSWORD's account: it cannot be given another role or disabled here.
 */
import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import { operators } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import type { OperatorRole } from "../admin/operator-types.js";
import { revokeOperatorSessions } from "../admin/sessions.js";
import { requireStepUp, type StepUp } from "../admin/step-up.js";
import type { OperatorRow } from "./operator-replies.js";

export interface UpdateOperatorInput {
  id: string;
  name?: string | undefined;
  role?: OperatorRole | undefined;
  isActive?: boolean | undefined;
}

export function operatorNotFound(): AppError {
  return new AppError("NOT_FOUND", "operator not found");
}

export async function updateOperator(
  ctx: Context,
  input: UpdateOperatorInput,
  origin: AuditOrigin,
  stepUp: StepUp,
): Promise<OperatorRow> {
  // Changing a role and re-enabling an account are step-up actions (DESIGN.md 12), asked before any
  // other check; renaming and disabling are not (disabling only takes access away).
  if (input.role !== undefined || input.isActive === true) await requireStepUp(ctx, stepUp);
  if (input.name === undefined && input.role === undefined && input.isActive === undefined) {
    throw new AppError("EMPTY_UPDATE", "send at least one of name, role, is_active");
  }
  if (!isUuid(input.id)) throw operatorNotFound();
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(operators).where(eq(operators.id, input.id)).for("update");
    if (!before) throw operatorNotFound();
    if (before.isBuiltin && (input.role !== undefined || input.isActive !== undefined)) {
      throw new AppError(
        "INVALID_STATE",
        "the built-in owner (ADMIN_PASSWORD) keeps its role and cannot be disabled",
      );
    }
    if (origin.actor.kind === "operator" && origin.actor.id === before.id && input.isActive === false) {
      throw new AppError("INVALID_STATE", "you cannot disable your own account");
    }
    const patch: Partial<typeof operators.$inferInsert> = { updatedAt: now };
    const changedBefore: Record<string, unknown> = {};
    const changedAfter: Record<string, unknown> = {};
    if (input.name !== undefined && input.name !== before.name) {
      patch.name = input.name;
      changedBefore.name = before.name;
      changedAfter.name = input.name;
    }
    if (input.role !== undefined && input.role !== before.role) {
      patch.role = input.role;
      changedBefore.role = before.role;
      changedAfter.role = input.role;
    }
    if (input.isActive !== undefined && input.isActive !== before.isActive) {
      patch.isActive = input.isActive;
      changedBefore.is_active = before.isActive;
      changedAfter.is_active = input.isActive;
    }
    const [row] = await tx.update(operators).set(patch).where(eq(operators.id, input.id)).returning();
    if (!row) throw operatorNotFound();
    let revoked = 0;
    if (patch.role !== undefined) revoked += await revokeOperatorSessions(ctx, tx, row.id, "role_changed");
    if (patch.isActive === false) revoked += await revokeOperatorSessions(ctx, tx, row.id, "disabled");
    if (Object.keys(changedAfter).length > 0) {
      const action =
        patch.isActive === false
          ? "operator.disable"
          : patch.isActive === true
            ? "operator.enable"
            : "operator.update";
      await appendAudit(tx, {
        ...origin,
        action,
        targetType: "operator",
        targetId: row.id,
        before: changedBefore,
        after: { ...changedAfter, sessions_revoked: revoked },
        at: now,
      });
    }
    return row;
  });
}
