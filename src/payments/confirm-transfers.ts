/**
 * Turns final transfers into outcomes. A transfer is final when it has CONFIRMATIONS confirmations
 * (scanned head - its block + 1) and the solidified chain holds it (checked by the caller). When
 * every transfer of an order is final, amount_received becomes the sum of its confirmed transfers and
 * the order gets its outcome (confirmed / underpaid / overpaid) with the outcome webhook in the same
 * transaction, and the merchant's ledger is credited with what the outcome adds. An order that
 * already had an outcome gets a new one (additional_payment).
 */
import { storedCurrency, type ChainId } from "../chains/chain-types.js";
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { orders, transfers } from "../db/schema.js";
import { formatAmount } from "../money.js";
import {
  outcomeEvent,
  outcomeFor,
  STATUSES_WITH_OUTCOME,
  transitionOrder,
  type OrderRow,
  type OutcomeStatus,
} from "../orders/transitions.js";
import { creditMerchant } from "../ledger/post-ledger.js";
import { enqueueSweep } from "../sweeps/enqueue-sweep.js";
import { enqueueOutcomeWebhook, type OutcomeEvent } from "../webhooks/enqueue-webhook.js";

export interface SeenTransfer {
  id: string;
  orderId: string;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
  toAddress: string;
  amount: bigint;
}

/** Unconfirmed transfers on `chain` with at least CONFIRMATIONS confirmations as of `scannedHead`. */
export async function listConfirmableTransfers(
  ctx: Context,
  scannedHead: number,
  limit = 500,
  chain: ChainId = ctx.chains.primary.id,
): Promise<SeenTransfer[]> {
  const highest = scannedHead - ctx.config.confirmations + 1;
  const rows = await ctx.db
    .select({
      id: transfers.id,
      orderId: transfers.orderId,
      txHash: transfers.txHash,
      logIndex: transfers.logIndex,
      blockNumber: transfers.blockNumber,
      blockHash: transfers.blockHash,
      toAddress: transfers.toAddress,
      amount: transfers.amount,
    })
    .from(transfers)
    .where(and(eq(transfers.status, "seen"), eq(transfers.chain, chain), lte(transfers.blockNumber, highest)))
    .orderBy(asc(transfers.blockNumber), asc(transfers.logIndex))
    .limit(limit);
  return rows.map((r) => ({ ...r, blockNumber: Number(r.blockNumber) }));
}

export interface SettleResult {
  /** The new outcome, when the order got one. */
  outcome?: OutcomeStatus;
  /** true when the outcome followed an earlier one (additional_payment). */
  additional?: boolean;
}

export function webhookEventFor(status: OutcomeStatus): OutcomeEvent {
  return `payment.${status}`;
}

/**
 * Marks `finalIds` (transfers of one order, verified final) confirmed and, when the order has no
 * unconfirmed transfer left, sets its outcome. Safe to run twice: confirmed transfers are skipped
 * and an unchanged sum on an order with an outcome changes nothing.
 */
export async function settleOrderTransfers(
  ctx: Context,
  orderId: string,
  finalIds: readonly string[],
): Promise<SettleResult> {
  return ctx.db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
    if (!order) return {};
    return settleLockedOrder(ctx, tx, order, finalIds, { sweep: true });
  });
}

/**
 * settleOrderTransfers inside the caller's transaction, on an order it has locked. `sweep: false`
 * when the newly confirmed money is not on the order's own address (an attached stray transfer is
 * swept by its address's settlement).
 */
export async function settleLockedOrder(
  ctx: Context,
  tx: Executor,
  order: OrderRow,
  finalIds: readonly string[],
  options: {
    sweep: boolean;
    /** The ledger transaction's kind for the merchant's credit (default payment_confirmed). */
    ledgerKind?: string;
  },
): Promise<SettleResult> {
  const orderId = order.id;
  const now = ctx.clock.now();
  if (finalIds.length > 0) {
    await tx
      .update(transfers)
      .set({ status: "confirmed", confirmedAt: now })
      .where(
        and(
          inArray(transfers.id, [...finalIds]),
          eq(transfers.orderId, orderId),
          eq(transfers.status, "seen"),
        ),
      );
  }
  const [totals] = await tx
    .select({
      seen: sql<number>`count(*) FILTER (WHERE ${transfers.status} = 'seen')`.mapWith(Number),
      confirmed: sql<string>`coalesce(sum(${transfers.amount}) FILTER (WHERE ${transfers.status} = 'confirmed'), 0)::text`,
      first: sql<
        string | null
      >`(array_agg(${transfers.txHash} ORDER BY ${transfers.blockNumber}, ${transfers.logIndex}))[1]`,
    })
    .from(transfers)
    .where(eq(transfers.orderId, orderId));
  if (!totals || totals.seen > 0) return {};
  const received = BigInt(totals.confirmed);
  if (received === 0n) return {};

  const outcome = outcomeFor(received, order.amountExpected);
  let additional: boolean;
  if (order.status === "detected") {
    additional = false;
  } else if (STATUSES_WITH_OUTCOME.includes(order.status)) {
    // Nothing new was confirmed for this order: its outcome stands.
    if (received === order.amountReceived) return {};
    additional = true;
  } else {
    ctx.log.warn({ orderId, status: order.status }, "confirmed transfers on an order without a payment");
    return {};
  }
  const transition = await transitionOrder(ctx, tx, {
    order,
    to: outcome,
    event: additional ? "additional_payment" : outcomeEvent(outcome),
    payload: {
      amount_received: formatAmount(received),
      amount_expected: formatAmount(order.amountExpected),
      ...(additional ? { previous_amount_received: formatAmount(order.amountReceived) } : {}),
    },
    patch: {
      amountReceived: received,
      confirmedAt: now,
      txHash: order.txHash ?? totals.first,
    },
  });
  // The merchant's balance grows by what this outcome adds, in the same transaction (DESIGN 14).
  const credited = received - order.amountReceived;
  if (credited !== 0n) {
    await creditMerchant(tx, {
      merchantId: order.merchantId,
      // The order's currency: its transfers are only ever of that token (apply-transfers.ts).
      currency: storedCurrency(order.currency),
      amount: credited,
      kind: options.ledgerKind ?? "payment_confirmed",
      refType: "order",
      refId: order.id,
      at: now,
    });
  }
  await enqueueOutcomeWebhook(ctx, tx, {
    order: transition.order,
    event: webhookEventFor(outcome),
    orderEventId: transition.eventId,
    eventCreatedAt: transition.eventCreatedAt,
  });
  if (options.sweep) await enqueueSweep(ctx, tx, transition.order);
  ctx.log.info(
    { orderId, status: outcome, amountReceived: formatAmount(received), additional },
    "payment outcome",
  );
  return { outcome, additional };
}
