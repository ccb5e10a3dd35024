/**
 * Attaches a stray transfer to an order (DESIGN.md 13): the order is credited exactly as if the
 * transfer had reached its own address (detected or late_payment, then the outcome and its webhook,
 * or additional_payment), and the stray row points at the order. Checked twice:
 *  - against our record: a confirmed stray to one of our addresses, not attached or dismissed, and
 *    never credited to any order ((tx_hash, log_index) has no `transfers` row);
 *  - against the chain: the final chain's record of the transaction holds a successful Transfer
 *    of the watched token at that index, to that address, of that amount.
 * A stray in another currency than the order's is refused (409 INVALID_STATE): the credit goes to
 * the merchant's balance in the order's currency, which must be the stray's. The money stays where
 * it is: the address's own settlement sweeps it, so the order's sweep is not queued for it. The order event `transfer_attached` {actor, reason, ...}, the credit and the audit
 * row commit in one transaction.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Context } from "../context.js";
import { isChainId } from "../chains/chain-types.js";
import { unitsToMicro } from "../chains/token-units.js";
import type { Executor } from "../db/connection.js";
import { orders, strayTransfers, transfers } from "../db/schema.js";
import { AppError, assertNever } from "../errors.js";
import { newId } from "../ids.js";
import { formatAmount } from "../money.js";
import { lockOrder } from "../orders/lock-order.js";
import { actorRecord, type ResolutionActor, type ResolutionOrigin } from "../orders/resolution-actor.js";
import { recordResolutionAudit } from "../orders/resolution-audit.js";
import { appendOrderEvent, transitionOrder, type OrderRow } from "../orders/transitions.js";
import { settleLockedOrder } from "../payments/confirm-transfers.js";

export interface AttachInput {
  orderId: string;
  txHash: string;
  logIndex?: number | undefined;
  actor: ResolutionActor;
  origin?: ResolutionOrigin;
  reason: string;
}

type StrayRow = typeof strayTransfers.$inferSelect;

async function findStray(tx: Executor, txHash: string, logIndex: number | undefined): Promise<StrayRow> {
  // TRON stores a hash as bare hex, EVM chains with 0x (src/chains/evm/read-range.ts): either form
  // given finds either (the two families' hashes never collide).
  const bare = txHash.toLowerCase().replace(/^0x/, "");
  const hashes = inArray(strayTransfers.txHash, [bare, `0x${bare}`]);
  const rows = await tx
    .select()
    .from(strayTransfers)
    .where(logIndex === undefined ? hashes : and(hashes, eq(strayTransfers.logIndex, logIndex)))
    .for("update");
  if (rows.length === 0) throw new AppError("NOT_FOUND", "no stray transfer is recorded with this tx_hash");
  if (rows.length > 1) {
    throw new AppError("VALIDATION_ERROR", "this transaction holds several stray transfers: give log_index");
  }
  return rows[0] as StrayRow;
}

/** The solidified chain's own record of the transfer must match the stray row. */
async function checkOnChain(ctx: Context, stray: StrayRow): Promise<void> {
  const chain = isChainId(stray.chain) ? ctx.chains.get(stray.chain) : undefined;
  if (!chain) throw new AppError("INVALID_STATE", `chain ${stray.chain} is not enabled`);
  if (chain.tokens.length === 0) throw new AppError("INVALID_STATE", "no token contract is configured");
  const recorded = await chain.finalTransfers(stray.txHash);
  if (!recorded) {
    throw new AppError("INVALID_STATE", "the transaction is not in the solidified chain");
  }
  const found = recorded.find((t) => t.logIndex === stray.logIndex);
  if (
    !found ||
    found.to !== stray.toAddress ||
    found.currency !== stray.currency ||
    unitsToMicro(found.units, found.decimals).micro !== stray.amount ||
    found.blockNumber !== stray.blockNumber
  ) {
    throw new AppError(
      "INVALID_STATE",
      "the chain does not hold this transfer as recorded (a SUCCESS USDT transfer to our address)",
    );
  }
}

export async function attachStrayTransfer(ctx: Context, input: AttachInput): Promise<OrderRow> {
  // The chain check first, outside the transaction (a node call holds no row lock); the record
  // is checked again under the locks below, so nothing the check saw can change before the credit.
  const preview = await ctx.db.transaction((tx) => findStray(tx, input.txHash, input.logIndex));
  if (preview.status !== "confirmed") {
    throw new AppError("INVALID_STATE", "the stray transfer is not confirmed yet");
  }
  await checkOnChain(ctx, preview);

  return ctx.db.transaction(async (tx) => {
    // Order first, then the stray: the same order as every other writer that takes both.
    const order = await lockOrder(tx, input.orderId);
    const stray = await findStray(tx, preview.txHash, preview.logIndex);
    if (stray.status !== "confirmed")
      throw new AppError("INVALID_STATE", "the stray transfer is not confirmed");
    if (stray.resolution !== null) {
      throw new AppError(
        "INVALID_STATE",
        stray.resolution === "attached"
          ? "the stray transfer is already attached to an order"
          : `the stray transfer was ${stray.resolution}`,
      );
    }
    // The order's balance is in its currency (DESIGN.md 16 "Balances"): money of another token is
    // never counted as the order's, so it never reaches the merchant's balance in the wrong currency.
    if (stray.currency !== order.currency) {
      throw new AppError(
        "INVALID_STATE",
        `the stray transfer is ${stray.currency}; the order takes ${order.currency}`,
      );
    }
    const [credited] = await tx
      .select({ id: transfers.id })
      .from(transfers)
      .where(and(eq(transfers.txHash, stray.txHash), eq(transfers.logIndex, stray.logIndex)));
    if (credited) throw new AppError("INVALID_STATE", "this transfer is already credited to an order");

    const now = ctx.clock.now();
    const transferId = newId();
    await tx.insert(transfers).values({
      id: transferId,
      orderId: order.id,
      txHash: stray.txHash,
      logIndex: stray.logIndex,
      blockNumber: stray.blockNumber,
      blockHash: stray.blockHash,
      blockTimestamp: stray.blockTimestamp,
      fromAddress: stray.fromAddress,
      toAddress: stray.toAddress,
      amount: stray.amount,
      chain: stray.chain,
      status: "confirmed",
      confirmedAt: now,
      createdAt: now,
    });
    const actor = actorRecord(input.actor);
    await tx
      .update(strayTransfers)
      .set({
        resolution: "attached",
        orderId: order.id,
        resolutionReason: input.reason,
        resolvedBy: actor,
        resolvedAt: now,
      })
      .where(eq(strayTransfers.id, stray.id));
    const attachedEvent = await appendOrderEvent(ctx, tx, order.id, "transfer_attached", {
      stray_transfer_id: stray.id,
      tx_hash: stray.txHash,
      log_index: stray.logIndex,
      amount: formatAmount(stray.amount),
      address: stray.toAddress,
      from_address: stray.fromAddress,
      actor,
      reason: input.reason,
    });

    let current = order;
    const payload = {
      tx_hash: stray.txHash,
      amount: formatAmount(stray.amount),
      from_address: stray.fromAddress,
      block_number: stray.blockNumber,
      attached: true,
    };
    const firstPayment = {
      txHash: order.txHash ?? stray.txHash,
      fromAddress: order.fromAddress ?? stray.fromAddress,
      detectedAt: order.detectedAt ?? now,
    };
    switch (order.status) {
      case "pending":
        current = (
          await transitionOrder(ctx, tx, {
            order,
            to: "detected",
            event: "payment_detected",
            payload,
            patch: firstPayment,
          })
        ).order;
        break;
      case "expired":
      case "cancelled":
        current = (
          await transitionOrder(ctx, tx, {
            order,
            to: "detected",
            event: "late_payment",
            payload,
            patch: firstPayment,
          })
        ).order;
        break;
      case "detected":
      case "confirmed":
      case "underpaid":
      case "overpaid":
      case "completed":
      case "callback_failed":
        break;
      default:
        assertNever(order.status);
    }
    // The transfer is final already: the outcome follows now unless the order still waits for
    // transfers of its own (then the confirmer sums this one with them).
    const settled = await settleLockedOrder(ctx, tx, current, [], {
      sweep: false,
      ledgerKind: "stray_attached",
    });
    await recordResolutionAudit(ctx, tx, {
      actor: input.actor,
      origin: input.origin,
      action: "order.attach_transfer",
      orderId: order.id,
      strayId: stray.id,
      reason: input.reason,
      before: { status: order.status, amount_received: formatAmount(order.amountReceived) },
      after: { order_event_id: attachedEvent, outcome: settled.outcome ?? null, tx_hash: stray.txHash },
    });
    ctx.log.info(
      {
        orderId: order.id,
        txHash: stray.txHash,
        amount: formatAmount(stray.amount),
        outcome: settled.outcome,
      },
      "stray transfer attached",
    );
    const [after] = await tx.select().from(orders).where(eq(orders.id, order.id));
    return after ?? current;
  });
}
