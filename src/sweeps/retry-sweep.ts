/**
 * POST /admin/orders/:id/retry-sweep (SPEC.md 4.4, DESIGN.md 7): re-enqueues a failed sweep with a
 * fresh attempt budget. Checks run in the documented order: existence (404), sweeping enabled (409
 * SWEEP_DISABLED), settlement failed (409 INVALID_STATE).
 */
import { and, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import { SYSTEM_ACTOR, type AuditOrigin } from "../audit/audit-types.js";
import { orders, settlements } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { appendOrderEvent } from "../orders/transitions.js";

export async function retrySweep(
  ctx: Context,
  orderId: string,
  origin: AuditOrigin = { actor: SYSTEM_ACTOR },
): Promise<void> {
  const notFound = new AppError("NOT_FOUND", "order not found");
  if (!isUuid(orderId)) throw notFound;
  await ctx.db.transaction(async (tx) => {
    const [order] = await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, orderId));
    if (!order) throw notFound;
    if (!ctx.config.sweepEnabled) {
      throw new AppError("SWEEP_DISABLED", "sweeping is not enabled on this deployment");
    }
    const now = ctx.clock.now();
    const [requeued] = await tx
      .update(settlements)
      .set({
        status: "waiting",
        attempts: 0,
        lastError: null,
        nextAttemptAt: now,
        leaseExpiresAt: null,
        leaseOwner: null,
        updatedAt: now,
      })
      .where(and(eq(settlements.orderId, orderId), eq(settlements.status, "failed")))
      .returning({ id: settlements.id, step: settlements.step });
    if (!requeued) {
      throw new AppError("INVALID_STATE", "only an order whose sweep failed can be retried");
    }
    await appendOrderEvent(ctx, tx, orderId, "sweep_retry_requested", {
      settlement_id: requeued.id,
      step: requeued.step,
    });
    await appendAudit(tx, {
      ...origin,
      action: "order.retry_sweep",
      targetType: "order",
      targetId: orderId,
      after: { settlement_id: requeued.id, step: requeued.step },
      at: now,
    });
  });
}
