/**
 * refund.completed, refund.failed, payout.completed and payout.failed (DESIGN.md 14): written to
 * the same outbox as payment webhooks, in the transaction that ends the payout, and delivered by
 * the same sender (signed, 10 attempts with backoff, SSRF guard). Sent only to the callback_url
 * given at creation: a payout created without one owes no webhook.
 */
import { and, desc, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit, type AuditOrigin } from "../audit/append-audit.js";
import type { Executor } from "../db/connection.js";
import { webhookDeliveries } from "../db/schema.js";
import { AppError } from "../errors.js";
import { newId } from "../ids.js";
import { formatAmount } from "../money.js";
import { displayAddress, payoutNetwork } from "./payout-currency.js";
import type { PayoutRow } from "./payout-types.js";
import { getPayout } from "./read-payouts.js";
import type { PayoutWebhookEvent, PayoutWebhookPayload } from "@stablegate/sdk/webhook-payload";

export function payoutWebhookEvent(row: PayoutRow): PayoutWebhookEvent | null {
  if (row.status !== "completed" && row.status !== "failed") return null;
  return `${row.kind}.${row.status}`;
}

export function buildPayoutWebhookPayload(
  ctx: Context,
  row: PayoutRow,
  event: PayoutWebhookEvent,
  at: Date,
): PayoutWebhookPayload {
  return {
    event,
    payout_id: row.id,
    kind: row.kind,
    order_id: row.orderId,
    external_id: row.externalId,
    amount: formatAmount(row.amount),
    currency: row.currency,
    chain: row.chain,
    network: payoutNetwork(ctx, row),
    address: displayAddress(ctx, row),
    status: row.status,
    tx_hash: row.txHash,
    timestamp: at.toISOString(),
  };
}

export async function enqueuePayoutWebhook(
  ctx: Context,
  tx: Executor,
  input: { payout: PayoutRow; eventId: string; eventCreatedAt: Date },
): Promise<string | null> {
  const row = input.payout;
  const event = payoutWebhookEvent(row);
  if (event === null || row.callbackUrl === null) return null;
  const now = ctx.clock.now();
  const id = newId(now.getTime());
  await tx.insert(webhookDeliveries).values({
    id,
    orderId: null,
    orderEventId: null,
    payoutId: row.id,
    payoutEventId: input.eventId,
    callbackUrl: row.callbackUrl,
    merchantId: row.merchantId,
    event,
    // evt_<payout_id>_<event>_<ts>, ts = the payout event's creation time in Unix milliseconds
    idempotencyKey: `evt_${row.id}_${event}_${input.eventCreatedAt.getTime()}`,
    payload: JSON.stringify(buildPayoutWebhookPayload(ctx, row, event, input.eventCreatedAt)),
    status: "pending",
    attempts: 0,
    maxAttempts: 10,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

/**
 * The admin's re-drive: the latest webhook of a completed or failed payout is sent again (same
 * payload and idempotency key) with a fresh budget of 10 attempts. An audit row in the same
 * transaction: a re-sent payout webhook tells the merchant money moved, so who asked is on record.
 */
export async function retryPayoutWebhook(ctx: Context, id: string, origin: AuditOrigin): Promise<void> {
  const payout = await getPayout(ctx, id);
  const payoutId = payout.id;
  await ctx.db.transaction(async (tx) => {
    const [last] = await tx
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.payoutId, payoutId))
      .orderBy(desc(webhookDeliveries.createdAt))
      .limit(1);
    if (!last)
      throw new AppError(
        "INVALID_STATE",
        "this payout has no webhook to send (no callback_url, or not finished)",
      );
    const now = ctx.clock.now();
    await tx
      .update(webhookDeliveries)
      .set({ status: "superseded", updatedAt: now })
      .where(and(eq(webhookDeliveries.payoutId, payoutId), eq(webhookDeliveries.status, "pending")));
    await tx.insert(webhookDeliveries).values({
      ...last,
      id: newId(now.getTime()),
      status: "pending",
      attempts: 0,
      maxAttempts: 10,
      nextAttemptAt: now,
      leaseExpiresAt: null,
      leaseOwner: null,
      lastError: null,
      lastStatusCode: null,
      deliveredAt: null,
      createdAt: now,
      updatedAt: now,
    });
    await appendAudit(tx, {
      ...origin,
      action: `${payout.kind}.retry_webhook`,
      targetType: payout.kind,
      targetId: payoutId,
      before: { webhook_event: last.event, webhook_status: last.status },
      after: { webhook_status: "pending", attempts_left: 10 },
      at: now,
    });
  });
}
