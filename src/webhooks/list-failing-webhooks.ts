/**
 * The failing webhooks of the overview: order and payout (refund) deliveries whose last attempt
 * failed, newest change first, with the error, the HTTP status and the next retry (none once the
 * delivery gave up). A delivery that succeeded, or that nothing has tried yet, is not failing.
 */
import { and, desc, eq, gt, isNotNull, or } from "drizzle-orm";
import type { Context } from "../context.js";
import { merchants, orders, payouts, webhookDeliveries } from "../db/schema.js";

export const FAILING_WEBHOOK_LIST_SIZE = 20;

export interface FailingWebhookView {
  delivery_id: string;
  event: string;
  /** "order" or the payout's kind ("payout", "refund") */
  subject: "order" | "payout" | "refund";
  subject_id: string;
  external_id: string | null;
  merchant_id: string;
  merchant_name: string;
  /** "pending": a retry is scheduled at next_attempt_at; "failed": retries are exhausted */
  status: "pending" | "failed";
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  last_status_code: number | null;
  next_attempt_at: string | null;
  updated_at: string;
  link: string;
}

export async function listFailingWebhooks(ctx: Context): Promise<FailingWebhookView[]> {
  const failing = or(
    eq(webhookDeliveries.status, "failed"),
    and(eq(webhookDeliveries.status, "pending"), gt(webhookDeliveries.attempts, 0)),
  );
  const rows = await ctx.db
    .select({
      delivery: webhookDeliveries,
      merchantName: merchants.name,
      orderExternalId: orders.externalId,
      payoutKind: payouts.kind,
      payoutExternalId: payouts.externalId,
    })
    .from(webhookDeliveries)
    .innerJoin(merchants, eq(merchants.id, webhookDeliveries.merchantId))
    .leftJoin(orders, eq(orders.id, webhookDeliveries.orderId))
    .leftJoin(payouts, eq(payouts.id, webhookDeliveries.payoutId))
    .where(and(failing, or(isNotNull(webhookDeliveries.orderId), isNotNull(webhookDeliveries.payoutId))))
    .orderBy(desc(webhookDeliveries.updatedAt), desc(webhookDeliveries.id))
    .limit(FAILING_WEBHOOK_LIST_SIZE);
  return rows.map(({ delivery, merchantName, orderExternalId, payoutKind, payoutExternalId }) => {
    const isOrder = delivery.orderId !== null;
    const subjectId = (isOrder ? delivery.orderId : delivery.payoutId)!;
    const pending = delivery.status === "pending";
    return {
      delivery_id: delivery.id,
      event: delivery.event,
      subject: isOrder ? "order" : (payoutKind ?? "payout"),
      subject_id: subjectId,
      external_id: isOrder ? orderExternalId : payoutExternalId,
      merchant_id: delivery.merchantId,
      merchant_name: merchantName,
      status: pending ? "pending" : "failed",
      attempts: delivery.attempts,
      max_attempts: delivery.maxAttempts,
      last_error: delivery.lastError,
      last_status_code: delivery.lastStatusCode,
      next_attempt_at: pending ? delivery.nextAttemptAt.toISOString() : null,
      updated_at: delivery.updatedAt.toISOString(),
      link: isOrder ? `/admin/orders/${subjectId}` : `/admin/payouts/${subjectId}`,
    };
  });
}
