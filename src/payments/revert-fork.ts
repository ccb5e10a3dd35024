/**
 * Undoes what the scanner credited from blocks that left the chain (a reorganisation, or a chain
 * that was reset). Unconfirmed transfers above the fork point are deleted; a detected order left
 * with no transfer goes back to pending (or to expired when its time is up) with payment_reverted.
 * Unconfirmed stray transfers above it are deleted too. Confirmed transfers are never touched: they
 * were in the solidified chain, which does not fork.
 * Runs in the scanner's transaction that rewinds the cursor.
 */
import type { ChainId } from "../chains/chain-types.js";
import { and, asc, eq, gt, inArray } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { orders, strayTransfers, transfers } from "../db/schema.js";
import { formatAmount } from "../money.js";
import { transitionOrder } from "../orders/transitions.js";

export interface RevertResult {
  /** Transfers deleted. */
  dropped: number;
  /** Orders that went back to pending or expired. */
  reverted: string[];
  /** Stray transfers deleted (their addresses are returned by releaseHeldAddresses). */
  strays: number;
}

export async function revertTransfersAbove(
  ctx: Context,
  tx: Executor,
  forkPoint: number,
  chain: ChainId = ctx.chains.primary.id,
): Promise<RevertResult> {
  const dropped = await tx
    .delete(transfers)
    .where(
      and(eq(transfers.status, "seen"), eq(transfers.chain, chain), gt(transfers.blockNumber, forkPoint)),
    )
    .returning({
      orderId: transfers.orderId,
      txHash: transfers.txHash,
      amount: transfers.amount,
      blockNumber: transfers.blockNumber,
    });
  // A stray is recorded like a payment and dropped like one: only while unconfirmed.
  const strays = await tx
    .delete(strayTransfers)
    .where(
      and(
        eq(strayTransfers.status, "seen"),
        eq(strayTransfers.chain, chain),
        gt(strayTransfers.blockNumber, forkPoint),
      ),
    )
    .returning({ txHash: strayTransfers.txHash, address: strayTransfers.toAddress });
  for (const s of strays) {
    ctx.log.warn(
      { txHash: s.txHash, address: s.address, forkPoint },
      "stray transfer dropped by a chain reorganisation",
    );
  }
  const result: RevertResult = {
    dropped: dropped.length + strays.length,
    reverted: [],
    strays: strays.length,
  };
  if (dropped.length === 0) return result;

  const orderIds = [...new Set(dropped.map((d) => d.orderId))].sort();
  const locked = await tx
    .select()
    .from(orders)
    .where(inArray(orders.id, orderIds))
    .orderBy(asc(orders.id))
    .for("update");
  const now = ctx.clock.now();
  for (const order of locked) {
    const gone = dropped.filter((d) => d.orderId === order.id);
    ctx.log.warn(
      { orderId: order.id, txHashes: gone.map((d) => d.txHash), forkPoint },
      "payment dropped by a chain reorganisation",
    );
    const [first] = await tx
      .select({ txHash: transfers.txHash, fromAddress: transfers.fromAddress })
      .from(transfers)
      .where(eq(transfers.orderId, order.id))
      .orderBy(asc(transfers.blockNumber), asc(transfers.logIndex))
      .limit(1);
    if (order.status !== "detected") continue; // an outcome never counted unconfirmed transfers
    if (!first) {
      await transitionOrder(ctx, tx, {
        order,
        to: now.getTime() >= order.expiresAt.getTime() ? "expired" : "pending",
        event: "payment_reverted",
        payload: {
          tx_hashes: gone.map((d) => d.txHash),
          amount: formatAmount(gone.reduce((sum, d) => sum + d.amount, 0n)),
          fork_point: forkPoint,
        },
        patch: { txHash: null, fromAddress: null, detectedAt: null },
      });
      result.reverted.push(order.id);
    } else if (first.txHash !== order.txHash) {
      await tx
        .update(orders)
        .set({ txHash: first.txHash, fromAddress: first.fromAddress, updatedAt: now })
        .where(eq(orders.id, order.id));
    }
  }
  return result;
}
