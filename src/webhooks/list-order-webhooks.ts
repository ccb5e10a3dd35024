/**
 * The webhook deliveries of one order with their attempt logs, oldest first, for the admin order
 * detail. Plain snake_case objects with ISO timestamps, ready to serialise; the merchant's secret
 * and the signatures are never stored per attempt, so they cannot leak from here.
 */
import { asc, eq, inArray } from "drizzle-orm";
import type { Context } from "../context.js";
import { webhookAttempts, webhookDeliveries } from "../db/schema.js";

export interface WebhookAttemptView {
  attempt: number;
  url: string;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  success: boolean;
}

export interface WebhookDeliveryView {
  id: string;
  event: string;
  idempotency_key: string;
  /** pending, delivered, failed or superseded. */
  status: string;
  attempts: number;
  max_attempts: number;
  /** Only while pending. */
  next_attempt_at: string | null;
  delivered_at: string | null;
  last_error: string | null;
  last_status_code: number | null;
  created_at: string;
  attempt_log: WebhookAttemptView[];
}

export async function listOrderWebhooks(ctx: Context, orderId: string): Promise<WebhookDeliveryView[]> {
  const deliveries = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.orderId, orderId))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));
  if (deliveries.length === 0) return [];
  const attempts = await ctx.db
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.deliveryId,
        deliveries.map((delivery) => delivery.id),
      ),
    )
    .orderBy(asc(webhookAttempts.startedAt), asc(webhookAttempts.attempt));
  const byDelivery = new Map<string, WebhookAttemptView[]>();
  for (const row of attempts) {
    const list = byDelivery.get(row.deliveryId) ?? [];
    list.push({
      attempt: row.attempt,
      url: row.url,
      started_at: row.startedAt.toISOString(),
      duration_ms: row.durationMs,
      status_code: row.statusCode,
      error: row.error,
      success: row.success,
    });
    byDelivery.set(row.deliveryId, list);
  }
  return deliveries.map((delivery) => ({
    id: delivery.id,
    event: delivery.event,
    idempotency_key: delivery.idempotencyKey,
    status: delivery.status,
    attempts: delivery.attempts,
    max_attempts: delivery.maxAttempts,
    next_attempt_at: delivery.status === "pending" ? delivery.nextAttemptAt.toISOString() : null,
    delivered_at: delivery.deliveredAt?.toISOString() ?? null,
    last_error: delivery.lastError,
    last_status_code: delivery.lastStatusCode,
    created_at: delivery.createdAt.toISOString(),
    attempt_log: byDelivery.get(delivery.id) ?? [],
  }));
}
