/**
 * Admin re-drive of an order's webhook (POST /admin/orders/:id/retry-webhook). Checks run in the
 * order of DESIGN.md 6: the override URL (VALIDATION_ERROR), the order (NOT_FOUND), its status
 * (INVALID_STATE). The latest outcome is re-sent as a new *run*: a new delivery row copying the
 * event, idempotency key and stored payload of the latest delivery, with a fresh budget of 10
 * attempts, due now, and the override (if any) on that row only. The order's callback_url is never
 * touched. A new row keeps the earlier run and its attempt log intact for the admin view.
 */
import { and, desc, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import { SYSTEM_ACTOR, type AuditOrigin } from "../audit/audit-types.js";
import { orders, webhookDeliveries } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid, newId } from "../ids.js";
import { appendOrderEvent, STATUSES_WITH_OUTCOME } from "../orders/transitions.js";
import { assertCallbackUrlAllowed } from "./ssrf.js";

export const WEBHOOK_MAX_ATTEMPTS = 10;

export interface RetryWebhookInput {
  /** One-shot override of the callback URL for this run only. */
  callbackUrl?: string | undefined;
}

export interface RetryWebhookResult {
  deliveryId: string;
}

export async function retryOrderWebhook(
  ctx: Context,
  orderId: string,
  input: RetryWebhookInput = {},
  origin: AuditOrigin = { actor: SYSTEM_ACTOR },
): Promise<RetryWebhookResult> {
  const override = input.callbackUrl;
  if (override !== undefined) {
    const problem = assertCallbackUrlAllowed(ctx.config, override);
    if (problem !== null) throw new AppError("VALIDATION_ERROR", problem);
  }
  if (!isUuid(orderId)) throw new AppError("NOT_FOUND", "order not found");

  const result = await ctx.db.transaction(async (tx) => {
    // Locked first (then its deliveries), like the outcome path and the attempt recorder.
    const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
    if (!order) throw new AppError("NOT_FOUND", "order not found");
    if (!STATUSES_WITH_OUTCOME.includes(order.status)) {
      throw new AppError(
        "INVALID_STATE",
        `order is ${order.status}; only an order with an outcome can be re-sent`,
      );
    }
    const [latest] = await tx
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.orderId, order.id))
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(1);
    if (!latest) {
      throw new AppError("INVALID_STATE", "order has no outcome webhook to re-send");
    }
    const now = ctx.clock.now();
    await tx
      .update(webhookDeliveries)
      .set({ status: "superseded", leaseOwner: null, leaseExpiresAt: null, updatedAt: now })
      .where(and(eq(webhookDeliveries.orderId, order.id), eq(webhookDeliveries.status, "pending")));
    const deliveryId = newId();
    // The new run must sort after the one it copies even when the clock has not moved.
    const createdAt = new Date(Math.max(now.getTime(), latest.createdAt.getTime() + 1));
    await tx.insert(webhookDeliveries).values({
      id: deliveryId,
      orderId: order.id,
      merchantId: latest.merchantId,
      orderEventId: latest.orderEventId,
      event: latest.event,
      idempotencyKey: latest.idempotencyKey,
      payload: latest.payload,
      status: "pending",
      attempts: 0,
      maxAttempts: WEBHOOK_MAX_ATTEMPTS,
      nextAttemptAt: now,
      callbackUrlOverride: override ?? null,
      createdAt,
      updatedAt: now,
    });
    await appendOrderEvent(ctx, tx, order.id, "webhook_retry_requested", {
      override: override !== undefined,
      delivery_id: deliveryId,
      event: latest.event,
      idempotency_key: latest.idempotencyKey,
    });
    await appendAudit(tx, {
      ...origin,
      action: "order.retry_webhook",
      targetType: "order",
      targetId: order.id,
      after: { delivery_id: deliveryId, callback_url_override: override ?? null },
      at: now,
    });
    return { deliveryId };
  });
  ctx.log.info(
    { orderId, deliveryId: result.deliveryId, override: override !== undefined },
    "webhook retry requested",
  );
  return result;
}
