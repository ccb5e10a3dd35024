/**
 * The outbox insert of a deposit webhook (deposit.detected, deposit.confirmed), in the transaction
 * that changes the deposit. It rides the order webhooks' machinery unchanged: the same table
 * (webhook_deliveries with deposit_id instead of order_id), the same sender, signature, headers,
 * 10 attempts and backoff (SPEC 6). The payload names the deposit's chain and currency (DESIGN.md 16). The body is built once here; X-Idempotency-Key is
 * evt_<deposit_id>_<event>_<ts>, ts = the deposit's detection or confirmation time in Unix ms.
 */
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { webhookDeliveries } from "../db/schema.js";
import { newId } from "../ids.js";
import { formatAmount } from "../money.js";
import type { DepositEvent, DepositWebhookPayload } from "@stablegate/sdk/webhook-payload";
import { displayAddress } from "../chains/address-display.js";
import type { ChainId, Currency } from "../chains/chain-types.js";
import { chainNetwork, type DepositRow } from "./deposit-address-view.js";

export function depositIdempotencyKey(depositId: string, event: DepositEvent, at: Date): string {
  return `evt_${depositId}_${event}_${at.getTime()}`;
}

export function buildDepositPayload(
  ctx: Context,
  deposit: DepositRow,
  customerRef: string,
  event: DepositEvent,
  confirmations: number,
  at: Date,
): DepositWebhookPayload {
  return {
    event,
    deposit_id: deposit.id,
    deposit_address_id: deposit.depositAddressId,
    customer_ref: customerRef,
    amount: formatAmount(deposit.amount),
    currency: deposit.currency as Currency,
    chain: deposit.chain as ChainId,
    network: chainNetwork(ctx, deposit.chain),
    tx_hash: deposit.txHash,
    from_address: displayAddress(deposit.chain, deposit.fromAddress),
    to_address: displayAddress(deposit.chain, deposit.toAddress),
    status: event === "deposit.confirmed" ? "confirmed" : "detected",
    confirmations,
    below_minimum: deposit.belowMinimum,
    address_status: deposit.addressStatus,
    timestamp: at.toISOString(),
  };
}

export interface DepositWebhookInput {
  deposit: DepositRow;
  customerRef: string;
  event: DepositEvent;
  confirmations: number;
  at: Date;
}

export async function enqueueDepositWebhook(
  ctx: Context,
  tx: Executor,
  input: DepositWebhookInput,
): Promise<void> {
  await enqueueDepositWebhooks(ctx, tx, [input]);
}

/** Many deposits' webhooks in one insert (a block can confirm hundreds of deposits at once). */
export async function enqueueDepositWebhooks(
  ctx: Context,
  tx: Executor,
  inputs: readonly DepositWebhookInput[],
): Promise<void> {
  if (inputs.length === 0) return;
  const now = ctx.clock.now();
  const rows = inputs.map((input) => ({
    id: newId(),
    orderId: null,
    orderEventId: null,
    depositId: input.deposit.id,
    merchantId: input.deposit.merchantId,
    event: input.event,
    idempotencyKey: depositIdempotencyKey(input.deposit.id, input.event, input.at),
    payload: JSON.stringify(
      buildDepositPayload(ctx, input.deposit, input.customerRef, input.event, input.confirmations, input.at),
    ),
    status: "pending" as const,
    attempts: 0,
    maxAttempts: 10,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await tx.insert(webhookDeliveries).values(rows.slice(i, i + 500));
}
