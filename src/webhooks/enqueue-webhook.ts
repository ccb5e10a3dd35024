/**
 * The outbox insert: called inside the transaction that sets an outcome, so the outcome and the
 * webhook it owes commit together. The body is built once here and every attempt sends these bytes.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import type { orders } from "../db/schema.js";
import { webhookDeliveries } from "../db/schema.js";
import { formatAmount } from "../money.js";
import { newId } from "../ids.js";
import type { OutcomeEvent, WebhookPayload } from "@stablegate/sdk/webhook-payload";
import type { ChainId, Currency } from "../chains/chain-types.js";
import { displayAddress } from "../chains/address-display.js";

export { OUTCOME_EVENTS, type OutcomeEvent, type WebhookPayload } from "@stablegate/sdk/webhook-payload";

export type OrderRow = typeof orders.$inferSelect;

export function buildWebhookPayload(
  order: OrderRow,
  event: OutcomeEvent,
  at: Date,
  resolution?: "manual",
): WebhookPayload {
  return {
    event,
    order_id: order.id,
    external_id: order.externalId,
    amount_expected: formatAmount(order.amountExpected),
    amount_received: formatAmount(order.amountReceived),
    currency: order.currency as Currency,
    chain: order.chain as ChainId,
    network: order.network,
    tx_hash: order.txHash,
    from_address: displayAddress(order.chain, order.fromAddress),
    to_address: displayAddress(order.chain, order.address),
    status: order.status,
    timestamp: at.toISOString(),
    ...(resolution ? { resolution } : {}),
  };
}

/** evt_<order_id>_<event>_<ts>, ts = the outcome event's creation time in Unix milliseconds. */
export function idempotencyKey(orderId: string, event: OutcomeEvent, eventCreatedAt: Date): string {
  return `evt_${orderId}_${event}_${eventCreatedAt.getTime()}`;
}

export interface EnqueueInput {
  /** The order row as it is after the outcome transition. */
  order: OrderRow;
  event: OutcomeEvent;
  /** The order event that recorded the outcome (payment_confirmed / _underpaid / _overpaid). */
  orderEventId: string;
  eventCreatedAt: Date;
  /** An outcome set by an operator (accept): the payload carries "resolution": "manual". */
  resolution?: "manual";
}

export async function enqueueOutcomeWebhook(
  ctx: Context,
  tx: Executor,
  input: EnqueueInput,
): Promise<string> {
  const [id] = await enqueueOutcomeWebhooks(ctx, tx, [input]);
  return id as string;
}

/**
 * Many orders' outcome webhooks (a block's payments settled together): one UPDATE supersedes their
 * undelivered older ones, one INSERT queues the new ones. Each order at most once. Returns the
 * delivery ids in the order of `inputs`.
 */
export async function enqueueOutcomeWebhooks(
  ctx: Context,
  tx: Executor,
  inputs: readonly EnqueueInput[],
): Promise<string[]> {
  if (inputs.length === 0) return [];
  const now = ctx.clock.now();
  // A newer outcome makes an undelivered older one stale: the merchant gets the current state once.
  await tx
    .update(webhookDeliveries)
    .set({ status: "superseded", updatedAt: now })
    .where(
      and(
        inArray(
          webhookDeliveries.orderId,
          inputs.map((input) => input.order.id),
        ),
        eq(webhookDeliveries.status, "pending"),
      ),
    );
  const rows = inputs.map((input) => ({
    id: newId(),
    orderId: input.order.id,
    merchantId: input.order.merchantId,
    orderEventId: input.orderEventId,
    event: input.event,
    idempotencyKey: idempotencyKey(input.order.id, input.event, input.eventCreatedAt),
    payload: JSON.stringify(
      buildWebhookPayload(input.order, input.event, input.eventCreatedAt, input.resolution),
    ),
    status: "pending" as const,
    attempts: 0,
    maxAttempts: 10,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  }));
  await tx.insert(webhookDeliveries).values(rows);
  return rows.map((row) => row.id);
}
