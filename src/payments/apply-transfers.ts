/**
 * Credits USDT transfers found by the scanner to the orders their recipient addresses belong to
 * (and hands transfers to addresses no order holds to the stray record: applyTransfers).
 * Runs inside the scanner's transaction, so transfers, order changes and the cursor advance commit
 * together. A transfer is recorded once ((tx_hash, log_index) is unique); a replay inserts nothing
 * and changes nothing.
 *
 * The recipient is looked up in the database for every batch (not in a cached set): an address is
 * watched from the moment the transaction that bound it to its order commits, with no window in
 * which a fresh order's payment could be scanned past.
 */
import { asc, eq, inArray } from "drizzle-orm";
import type { ChainId, Currency } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { orders, transfers } from "../db/schema.js";
import { assertNever } from "../errors.js";
import { newId } from "../ids.js";
import { formatAmount } from "../money.js";
import {
  transitionDetections,
  transitionOrder,
  type DetectionTransition,
  type OrderRow,
} from "../orders/transitions.js";
import { recordStrayTransfers, type StrayHolder } from "../strays/record-stray-transfers.js";
import { addressHolders, orderHolders, type AddressHolder } from "./address-holders.js";

export interface ChainTransfer {
  txHash: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
  blockTimestamp: Date;
  /** base58 payer (the token holder whose balance fell, also for transferFrom) */
  from: string;
  /** base58 recipient */
  to: string;
  /** micro-units, > 0 */
  amount: bigint;
  /** The chain the transfer was seen on. */
  chain: ChainId;
  /** The token's currency; when given, an order is paid only in its own currency. */
  currency?: Currency | undefined;
  /** Token units below one micro-unit (18-decimal tokens), kept on the transfer, never credited. */
  remainder: bigint;
  /** The token's decimals (the remainder's scale); 6 when not given. */
  decimals?: number | undefined;
}

export interface CreditResult {
  /** Transfers newly recorded (replays not counted). */
  credited: number;
  /** Orders moved to detected (payment_detected or late_payment). */
  detected: string[];
}

/**
 * Dispatches the scanner's transfers by their recipient's holder (address-holders.ts): an order's
 * payment, or a stray transfer. Transfers to addresses that are not ours are ignored. Returns the
 * newly recorded ones (payments and strays) in `credited`.
 */
export async function applyTransfers(
  ctx: Context,
  tx: Executor,
  candidates: readonly ChainTransfer[],
  /** The recipients' holders when the caller already looked them up (addressHolders). */
  known?: ReadonlyMap<string, AddressHolder>,
): Promise<CreditResult & { strays: number }> {
  const holders =
    known ??
    (await addressHolders(
      tx,
      candidates.map((c) => c.to),
    ));
  const payments: ChainTransfer[] = [];
  const strays: { transfer: ChainTransfer; holder: StrayHolder }[] = [];
  for (const transfer of candidates) {
    const holder = holders.get(transfer.to);
    if (!holder) continue;
    switch (holder.kind) {
      case "order":
        if (paysOrder(transfer, holder)) payments.push(transfer);
        // The address's order is on another chain or in another currency: a stray on this chain.
        else
          strays.push({
            transfer,
            holder: {
              kind: "stray",
              addressId: holder.addressId,
              previousOrderId: holder.orderId,
              free: false,
            },
          });
        break;
      case "stray":
        strays.push({ transfer, holder });
        break;
      case "deposit":
        // credited by creditDeposits (src/deposits), which the scanner runs in the same transaction
        break;
      default:
        assertNever(holder);
    }
  }
  const credited = await creditTransfers(ctx, tx, payments, orderHolders(holders));
  const recorded = await recordStrayTransfers(ctx, tx, strays);
  return { ...credited, credited: credited.credited + recorded, strays: recorded };
}

/** Whether `transfer` is a payment of the order holding its address: same chain and currency. */
function paysOrder(transfer: ChainTransfer, holder: Extract<AddressHolder, { kind: "order" }>): boolean {
  if (transfer.chain !== holder.chain) return false;
  return transfer.currency === undefined || transfer.currency === holder.currency;
}

/**
 * Records and credits the transfers whose recipient is watched. `candidates` must be in chain order
 * (block, transaction, log), so an order's tx_hash is its first transfer.
 */
export async function creditTransfers(
  ctx: Context,
  tx: Executor,
  candidates: readonly ChainTransfer[],
  /** The recipients' orders when the caller already looked them up (orderHolders). */
  known?: ReadonlyMap<string, string>,
): Promise<CreditResult> {
  const result: CreditResult = { credited: 0, detected: [] };
  if (candidates.length === 0) return result;
  const owners =
    known ??
    orderHolders(
      await addressHolders(
        tx,
        candidates.map((c) => c.to),
      ),
    );
  const matched = candidates.filter((c) => owners.has(c.to));
  if (matched.length === 0) return result;

  // Lock every affected order up front, in id order, so concurrent writers cannot deadlock with us.
  const orderIds = [...new Set(matched.map((c) => owners.get(c.to) as string))].sort();
  const locked = await tx
    .select()
    .from(orders)
    .where(inArray(orders.id, orderIds))
    .orderBy(asc(orders.id))
    .for("update");
  const byId = new Map(locked.map((o) => [o.id, o]));
  const now = ctx.clock.now();

  const rows = matched.map((transfer) => ({
    id: newId(),
    orderId: owners.get(transfer.to) as string,
    txHash: transfer.txHash,
    logIndex: transfer.logIndex,
    blockNumber: transfer.blockNumber,
    blockHash: transfer.blockHash,
    blockTimestamp: transfer.blockTimestamp,
    fromAddress: transfer.from,
    toAddress: transfer.to,
    amount: transfer.amount,
    chain: transfer.chain,
    remainder: transfer.remainder,
    status: "seen" as const,
    createdAt: now,
  }));
  const inserted = new Set<string>();
  for (let i = 0; i < rows.length; i += 1000) {
    const done = await tx
      .insert(transfers)
      .values(rows.slice(i, i + 1000))
      .onConflictDoNothing({ target: [transfers.txHash, transfers.logIndex] })
      .returning({ txHash: transfers.txHash, logIndex: transfers.logIndex });
    for (const d of done) inserted.add(`${d.txHash}:${d.logIndex}`);
  }

  // Replays (already recorded transfers) change nothing; new ones are credited in chain order. An
  // order waiting for its payment (pending, expired, cancelled) is detected by its first new
  // transfer: all of them in one statement (transitionDetections); the rare rest one at a time.
  const detections: DetectionTransition[] = [];
  const detecting = new Set<string>();
  for (const transfer of matched) {
    if (!inserted.has(`${transfer.txHash}:${transfer.logIndex}`)) continue;
    const orderId = owners.get(transfer.to) as string;
    const order = byId.get(orderId);
    if (!order) continue;
    result.credited += 1;
    let status = order.status;
    if (detecting.has(orderId)) {
      status = "detected";
    } else if (order.status === "pending" || order.status === "expired" || order.status === "cancelled") {
      detecting.add(orderId);
      detections.push({
        order,
        event: order.status === "pending" ? "payment_detected" : "late_payment",
        payload: detectionPayload(transfer),
        txHash: order.txHash ?? transfer.txHash,
        fromAddress: order.fromAddress ?? transfer.from,
        detectedAt: order.detectedAt ?? ctx.clock.now(),
      });
      status = "detected";
      result.detected.push(orderId);
    } else {
      const updated = await creditOrder(ctx, tx, order, transfer);
      byId.set(orderId, updated);
      status = updated.status;
    }
    ctx.log.info(
      { orderId, txHash: transfer.txHash, amount: formatAmount(transfer.amount), status },
      "payment detected",
    );
  }
  await transitionDetections(ctx, tx, detections);
  return result;
}

function detectionPayload(transfer: ChainTransfer): Record<string, unknown> {
  return {
    tx_hash: transfer.txHash,
    amount: formatAmount(transfer.amount),
    from_address: transfer.from,
    block_number: transfer.blockNumber,
  };
}

async function creditOrder(
  ctx: Context,
  tx: Executor,
  order: OrderRow,
  transfer: ChainTransfer,
): Promise<OrderRow> {
  const payload = detectionPayload(transfer);
  const firstPayment = {
    txHash: order.txHash ?? transfer.txHash,
    fromAddress: order.fromAddress ?? transfer.from,
    detectedAt: order.detectedAt ?? ctx.clock.now(),
  };
  switch (order.status) {
    case "pending":
      return (
        await transitionOrder(ctx, tx, {
          order,
          to: "detected",
          event: "payment_detected",
          payload,
          patch: firstPayment,
        })
      ).order;
    case "expired":
    case "cancelled":
      // The address still belongs to the order (quarantine), so a payment after expiry or
      // cancellation is credited to it.
      return (
        await transitionOrder(ctx, tx, {
          order,
          to: "detected",
          event: "late_payment",
          payload,
          patch: firstPayment,
        })
      ).order;
    case "detected": {
      // Another transfer: summed when every transfer of the order is final.
      if (order.txHash) return order;
      const [updated] = await tx.update(orders).set(firstPayment).where(eq(orders.id, order.id)).returning();
      return updated ?? order;
    }
    case "confirmed":
    case "underpaid":
    case "overpaid":
    case "completed":
    case "callback_failed":
      // The order keeps its outcome until this transfer is final; then it gets a new one
      // (additional_payment) with a new webhook.
      return order;
    default:
      return assertNever(order.status);
  }
}
