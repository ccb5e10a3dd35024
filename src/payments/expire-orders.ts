/**
 * Pending orders whose expires_at has passed become expired (event order_expired, no webhook).
 * Rows are claimed with FOR UPDATE SKIP LOCKED, so two expirers never take the same order, and
 * transitionOrder's conditional update refuses an order a payment moved to detected meanwhile:
 * a detected order never expires.
 */
import { and, asc, eq, lte } from "drizzle-orm";
import type { Context } from "../context.js";
import { orders } from "../db/schema.js";
import { transitionOrder } from "../orders/transitions.js";

export const EXPIRE_BATCH_SIZE = 100;

export interface ExpireResult {
  expired: number;
  more: boolean;
}

export async function expireOrders(
  ctx: Context,
  options: { batchSize?: number } = {},
): Promise<ExpireResult> {
  const batchSize = options.batchSize ?? EXPIRE_BATCH_SIZE;
  const now = ctx.clock.now();
  const expired = await ctx.db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(orders)
      .where(and(eq(orders.status, "pending"), lte(orders.expiresAt, now)))
      .orderBy(asc(orders.expiresAt))
      .limit(batchSize)
      .for("update", { skipLocked: true });
    for (const order of due) {
      await transitionOrder(ctx, tx, {
        order,
        to: "expired",
        event: "order_expired",
        payload: { expires_at: order.expiresAt.toISOString() },
      });
    }
    return due.map((order) => order.id);
  });
  if (expired.length > 0) ctx.log.info({ expired: expired.length, orderIds: expired }, "orders expired");
  return { expired: expired.length, more: expired.length === batchSize };
}
