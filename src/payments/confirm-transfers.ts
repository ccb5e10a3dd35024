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
import { pgArray } from "../db/pg-array.js";
import {
  outcomeEvent,
  outcomeFor,
  STATUSES_WITH_OUTCOME,
  transitionOrder,
  transitionOutcomes,
  type OrderRow,
  type OutcomeStatus,
  type OutcomeTransition,
  type TransitionResult,
} from "../orders/transitions.js";
import { creditMerchant, creditMerchants } from "../ledger/post-ledger.js";
import { enqueueSweep, enqueueSweeps } from "../sweeps/enqueue-sweep.js";
import {
  enqueueOutcomeWebhook,
  enqueueOutcomeWebhooks,
  type OutcomeEvent,
} from "../webhooks/enqueue-webhook.js";

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

/** What an order's transfers add up to once the newly final ones are confirmed. */
interface OrderTotals {
  /** Its transfers still unconfirmed. */
  seen: number;
  /** The sum of its confirmed transfers. */
  confirmed: bigint;
  /** The tx hash of its first transfer (by block, then log index). */
  first: string | null;
}

type OutcomeDecision = { outcome: OutcomeStatus; additional: boolean; received: bigint } | undefined;

/**
 * The outcome an order gets from its totals, or none: a transfer still unconfirmed, nothing
 * received, an unchanged sum on an order that has its outcome, or an order without a payment.
 */
function decideOutcome(ctx: Context, order: OrderRow, totals: OrderTotals | undefined): OutcomeDecision {
  if (!totals || totals.seen > 0) return undefined;
  const received = totals.confirmed;
  if (received === 0n) return undefined;
  const outcome = outcomeFor(received, order.amountExpected);
  if (order.status === "detected") return { outcome, additional: false, received };
  if (STATUSES_WITH_OUTCOME.includes(order.status)) {
    // Nothing new was confirmed for this order: its outcome stands.
    if (received === order.amountReceived) return undefined;
    return { outcome, additional: true, received };
  }
  ctx.log.warn(
    { orderId: order.id, status: order.status },
    "confirmed transfers on an order without a payment",
  );
  return undefined;
}

function outcomePayload(order: OrderRow, decision: NonNullable<OutcomeDecision>): Record<string, unknown> {
  return {
    amount_received: formatAmount(decision.received),
    amount_expected: formatAmount(order.amountExpected),
    ...(decision.additional ? { previous_amount_received: formatAmount(order.amountReceived) } : {}),
  };
}

function logOutcome(ctx: Context, orderId: string, decision: NonNullable<OutcomeDecision>): void {
  ctx.log.info(
    {
      orderId,
      status: decision.outcome,
      amountReceived: formatAmount(decision.received),
      additional: decision.additional,
    },
    "payment outcome",
  );
}

/** The totals of these orders' transfers, by order id. */
async function orderTotals(tx: Executor, orderIds: readonly string[]): Promise<Map<string, OrderTotals>> {
  const rows = await tx
    .select({
      orderId: transfers.orderId,
      seen: sql<number>`count(*) FILTER (WHERE ${transfers.status} = 'seen')`.mapWith(Number),
      confirmed: sql<string>`coalesce(sum(${transfers.amount}) FILTER (WHERE ${transfers.status} = 'confirmed'), 0)::text`,
      first: sql<
        string | null
      >`(array_agg(${transfers.txHash} ORDER BY ${transfers.blockNumber}, ${transfers.logIndex}))[1]`,
    })
    .from(transfers)
    .where(inArray(transfers.orderId, [...orderIds]))
    .groupBy(transfers.orderId);
  return new Map(
    rows.map((r) => [r.orderId, { seen: r.seen, confirmed: BigInt(r.confirmed), first: r.first }]),
  );
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
  const totals = (await orderTotals(tx, [orderId])).get(orderId);
  const decision = decideOutcome(ctx, order, totals);
  if (!decision) return {};
  const { outcome, additional, received } = decision;
  const transition = await transitionOrder(ctx, tx, {
    order,
    to: outcome,
    event: additional ? "additional_payment" : outcomeEvent(outcome),
    payload: outcomePayload(order, decision),
    patch: {
      amountReceived: received,
      confirmedAt: now,
      txHash: order.txHash ?? totals?.first ?? null,
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
  logOutcome(ctx, orderId, decision);
  return { outcome, additional };
}

/**
 * settleOrderTransfers for many orders in one transaction with a fixed number of statements
 * whatever their number (the confirmer settling a block of payments): the orders locked in id
 * order, their final transfers confirmed, their totals read, their outcomes set (transitionOutcomes),
 * the merchants credited, the webhooks queued and the sweeps queued, each one statement for all.
 * Decides exactly as settleOrderTransfers does, order by order. If the batch fails (an order
 * changed concurrently, a deadlock), nothing of it is kept and each order is settled alone, so one
 * order can neither hold the others back nor be settled twice. Results by order id.
 */
export async function settleOrdersTransfers(
  ctx: Context,
  finalIds: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, SettleResult>> {
  if (finalIds.size <= 1) {
    const out = new Map<string, SettleResult>();
    for (const [orderId, ids] of finalIds) out.set(orderId, await settleOrderTransfers(ctx, orderId, ids));
    return out;
  }
  try {
    return await ctx.db.transaction((tx) => settleLockedBatch(ctx, tx, finalIds));
  } catch (error) {
    ctx.log.warn({ err: error, orders: finalIds.size }, "batched settlement failed: settling order by order");
    const out = new Map<string, SettleResult>();
    for (const [orderId, ids] of finalIds) out.set(orderId, await settleOrderTransfers(ctx, orderId, ids));
    return out;
  }
}

async function settleLockedBatch(
  ctx: Context,
  tx: Executor,
  finalIds: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, SettleResult>> {
  const out = new Map<string, SettleResult>();
  const now = ctx.clock.now();
  // In id order, as the webhook recorder locks orders, so two batches never wait on each other in a cycle.
  const locked = await tx
    .select()
    .from(orders)
    .where(inArray(orders.id, [...finalIds.keys()]))
    .orderBy(asc(orders.id))
    .for("update");
  if (locked.length === 0) return out;
  const pairs = [...finalIds].flatMap(([orderId, ids]) => ids.map((id) => [id, orderId] as const));
  if (pairs.length > 0) {
    // Each transfer only with its own order, as settleLockedOrder does.
    await tx
      .update(transfers)
      .set({ status: "confirmed", confirmedAt: now })
      .from(
        sql`unnest(${pgArray(pairs.map(([id]) => id))}::uuid[], ${pgArray(pairs.map(([, orderId]) => orderId))}::uuid[])
              AS f (id, order_id)`,
      )
      .where(
        and(
          eq(transfers.id, sql`f.id`),
          eq(transfers.orderId, sql`f.order_id`),
          eq(transfers.status, "seen"),
        ),
      );
  }
  const totals = await orderTotals(
    tx,
    locked.map((o) => o.id),
  );
  const items: (OutcomeTransition & { decision: NonNullable<OutcomeDecision> })[] = [];
  for (const order of locked) {
    const decision = decideOutcome(ctx, order, totals.get(order.id));
    if (!decision) {
      out.set(order.id, {});
      continue;
    }
    items.push({
      order,
      to: decision.outcome,
      event: decision.additional ? "additional_payment" : outcomeEvent(decision.outcome),
      payload: outcomePayload(order, decision),
      amountReceived: decision.received,
      txHash: order.txHash ?? totals.get(order.id)?.first ?? null,
      decision,
    });
  }
  const transitions = await transitionOutcomes(ctx, tx, items, now);
  // The merchants' balances grow by what these outcomes add, in the same transaction (DESIGN 14).
  await creditMerchants(
    tx,
    items
      .filter((item) => item.decision.received !== item.order.amountReceived)
      .map((item) => ({
        merchantId: item.order.merchantId,
        // The order's currency: its transfers are only ever of that token (apply-transfers.ts).
        currency: storedCurrency(item.order.currency),
        amount: item.decision.received - item.order.amountReceived,
        kind: "payment_confirmed",
        refType: "order",
        refId: item.order.id,
        at: now,
      })),
  );
  await enqueueOutcomeWebhooks(
    ctx,
    tx,
    items.map((item, i) => {
      const transition = transitions[i] as TransitionResult;
      return {
        order: transition.order,
        event: webhookEventFor(item.decision.outcome),
        orderEventId: transition.eventId,
        eventCreatedAt: transition.eventCreatedAt,
      };
    }),
  );
  await enqueueSweeps(
    ctx,
    tx,
    transitions.map((t) => t.order),
  );
  for (const item of items) {
    logOutcome(ctx, item.order.id, item.decision);
    out.set(item.order.id, { outcome: item.decision.outcome, additional: item.decision.additional });
  }
  return out;
}
