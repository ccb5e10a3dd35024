/**
 * A fork that drops a block drops its deposits: each detected deposit above the fork point becomes
 * `reverted` (deposit_reverted event), and a deposit.detected webhook not yet delivered is
 * superseded, so nothing reports it any more. A confirmed deposit was in the solidified chain,
 * which does not fork: it is never touched. Runs in the scanner's rewind transaction.
 */
import type { ChainId } from "../chains/chain-types.js";
import { and, eq, gt, inArray } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { depositEvents, deposits, webhookDeliveries } from "../db/schema.js";
import { newId } from "../ids.js";
import { formatAmount } from "../money.js";

export async function revertDepositsAbove(
  ctx: Context,
  tx: Executor,
  forkPoint: number,
  chain: ChainId = ctx.chains.primary.id,
): Promise<number> {
  const now = ctx.clock.now();
  const reverted = await tx
    .update(deposits)
    .set({ status: "reverted", revertedAt: now, updatedAt: now })
    .where(
      and(eq(deposits.status, "detected"), eq(deposits.chain, chain), gt(deposits.blockNumber, forkPoint)),
    )
    .returning();
  if (reverted.length === 0) return 0;
  await tx
    .update(webhookDeliveries)
    .set({ status: "superseded", updatedAt: now })
    .where(
      and(
        inArray(
          webhookDeliveries.depositId,
          reverted.map((d) => d.id),
        ),
        eq(webhookDeliveries.status, "pending"),
      ),
    );
  await tx.insert(depositEvents).values(
    reverted.map((d) => ({
      id: newId(),
      depositId: d.id,
      eventType: "deposit_reverted",
      payload: { tx_hash: d.txHash, amount: formatAmount(d.amount), fork_point: forkPoint },
      createdAt: now,
    })),
  );
  for (const d of reverted)
    ctx.log.warn(
      { depositId: d.id, txHash: d.txHash, forkPoint },
      "deposit dropped by a chain reorganisation",
    );
  return reverted.length;
}
