/**
 * Stray transfers reach finality exactly as order transfers do (the confirmer proves their blocks
 * in the solidified chain, src/chain/confirmer.ts). A confirmed stray queues its address's sweep
 * (an address-level settlement) in the same transaction; the operator alert follows from the
 * alert loop (evaluate-alerts.ts).
 */
import type { ChainId } from "../chains/chain-types.js";
import { and, asc, eq, inArray, lte } from "drizzle-orm";
import type { Context } from "../context.js";
import { strayTransfers } from "../db/schema.js";
import { formatAmount } from "../money.js";
import { enqueueAddressSweeps } from "../sweeps/enqueue-sweep.js";

export interface SeenStray {
  id: string;
  addressId: number;
  txHash: string;
  blockNumber: number;
  blockHash: string;
  toAddress: string;
}

/** Unconfirmed strays with at least CONFIRMATIONS confirmations as of `scannedHead`. */
export async function listConfirmableStrays(
  ctx: Context,
  scannedHead: number,
  limit = 500,
  chain: ChainId = ctx.chains.primary.id,
): Promise<SeenStray[]> {
  const highest = scannedHead - ctx.config.confirmations + 1;
  return ctx.db
    .select({
      id: strayTransfers.id,
      addressId: strayTransfers.addressId,
      txHash: strayTransfers.txHash,
      blockNumber: strayTransfers.blockNumber,
      blockHash: strayTransfers.blockHash,
      toAddress: strayTransfers.toAddress,
    })
    .from(strayTransfers)
    .where(
      and(
        eq(strayTransfers.status, "seen"),
        eq(strayTransfers.chain, chain),
        lte(strayTransfers.blockNumber, highest),
      ),
    )
    .orderBy(asc(strayTransfers.blockNumber), asc(strayTransfers.logIndex))
    .limit(limit);
}

/** Marks verified-final strays confirmed and queues their addresses' sweeps. Safe to run twice. */
export async function confirmStrayTransfers(ctx: Context, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const confirmed = await tx
      .update(strayTransfers)
      .set({ status: "confirmed", confirmedAt: now })
      .where(and(inArray(strayTransfers.id, [...ids]), eq(strayTransfers.status, "seen")))
      .returning({
        addressId: strayTransfers.addressId,
        toAddress: strayTransfers.toAddress,
        txHash: strayTransfers.txHash,
        amount: strayTransfers.amount,
        chain: strayTransfers.chain,
      });
    // One settlement per address and chain (an EVM address is the same on every EVM chain).
    const targets = new Map(
      confirmed.map((c) => [
        `${c.addressId}:${c.chain}`,
        { addressId: c.addressId, address: c.toAddress, chain: c.chain },
      ]),
    );
    await enqueueAddressSweeps(ctx, tx, [...targets.values()]);
    for (const c of confirmed) {
      ctx.log.warn(
        { txHash: c.txHash, address: c.toAddress, amount: formatAmount(c.amount) },
        "stray transfer confirmed",
      );
    }
    return confirmed.length;
  });
}
