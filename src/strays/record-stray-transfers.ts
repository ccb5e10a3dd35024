/**
 * Records transfers to addresses no order holds (DESIGN.md 4 and 13: stray transfers). Runs inside
 * the scanner's transaction, with the addresses locked by addressHolders. A stray is recorded once
 * ((tx_hash, log_index) is unique); a replay inserts nothing. An address that was free leaves the
 * pool in the same transaction (status allocated, no order), so it is never handed to a new order
 * while it holds the stray's balance: releaseHeldAddresses returns it once that balance is swept.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { strayTransfers } from "../db/schema.js";
import { newId } from "../ids.js";
import { formatAmount } from "../money.js";
import type { AddressHolder } from "../payments/address-holders.js";
import type { ChainTransfer } from "../payments/apply-transfers.js";

export type StrayHolder = Extract<AddressHolder, { kind: "stray" }>;

export async function recordStrayTransfers(
  ctx: Context,
  tx: Executor,
  strays: readonly { transfer: ChainTransfer; holder: StrayHolder }[],
): Promise<number> {
  if (strays.length === 0) return 0;
  const now = ctx.clock.now();
  const rows = strays.map(({ transfer, holder }) => ({
    id: newId(),
    addressId: holder.addressId,
    txHash: transfer.txHash,
    logIndex: transfer.logIndex,
    blockNumber: transfer.blockNumber,
    blockHash: transfer.blockHash,
    blockTimestamp: transfer.blockTimestamp,
    fromAddress: transfer.from,
    toAddress: transfer.to,
    amount: transfer.amount,
    // what an 18-decimal token carried below one micro-unit: kept, never credited
    remainder: transfer.remainder,
    tokenDecimals: transfer.decimals ?? 6,
    chain: transfer.chain,
    // The token seen (undefined only where every transfer was USDT, before EVM chains).
    currency: transfer.currency ?? ("USDT" as const),
    status: "seen" as const,
    previousOrderId: holder.previousOrderId,
    createdAt: now,
  }));
  const inserted = await tx
    .insert(strayTransfers)
    .values(rows)
    .onConflictDoNothing({ target: [strayTransfers.txHash, strayTransfers.logIndex] })
    .returning({
      addressId: strayTransfers.addressId,
      txHash: strayTransfers.txHash,
      amount: strayTransfers.amount,
      to: strayTransfers.toAddress,
    });
  const held = [...new Set(inserted.map((r) => r.addressId))].sort((a, b) => a - b);
  if (held.length > 0) {
    await tx.execute(sql`
      UPDATE addresses SET status = 'allocated'
      WHERE id = ANY(string_to_array(${held.join(",")}, ',')::bigint[]) AND status = 'free' AND order_id IS NULL`);
  }
  for (const r of inserted) {
    ctx.log.warn(
      { txHash: r.txHash, address: r.to, amount: formatAmount(r.amount) },
      "stray transfer: USDT reached an address no order holds",
    );
  }
  return inserted.length;
}
