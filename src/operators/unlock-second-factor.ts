/**
 * The owner lifts an operator's second-factor lockout (their wrong codes are forgotten): a step-up
 * action, since it reopens guessing. Nobody lifts their own: a locked owner waits out the window.
 * Audited.
 */
import { eq, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import { operatorFactorFailures } from "../db/schema.js";
import { AppError } from "../errors.js";
import { FACTOR_LOCK_CLASS, factorLockedUntil } from "../admin/factor-lockout.js";
import { requireStepUp, type StepUp } from "../admin/step-up.js";
import { findOperator } from "./list-operators.js";
import { operatorNotFound } from "./update-operator.js";

export async function unlockSecondFactor(ctx: Context, operatorId: string, stepUp: StepUp): Promise<boolean> {
  const origin = stepUp.origin;
  if (!(await findOperator(ctx, operatorId))) throw operatorNotFound();
  if (origin.actor.kind === "operator" && origin.actor.id === operatorId) {
    throw new AppError(
      "INVALID_STATE",
      "you cannot unlock your own second factor: wait for the lockout to end",
    );
  }
  await requireStepUp(ctx, stepUp);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${FACTOR_LOCK_CLASS}, hashtext(${operatorId}))`);
    const until = await factorLockedUntil(ctx, tx, operatorId);
    await tx.delete(operatorFactorFailures).where(eq(operatorFactorFailures.operatorId, operatorId));
    await appendAudit(tx, {
      ...origin,
      action: "operator.second_factor_unlock",
      targetType: "operator",
      targetId: operatorId,
      before: { locked_until: until?.toISOString() ?? null },
      after: { locked_until: null },
      at: now,
    });
    return until !== null;
  });
}
