/**
 * Deposits become final exactly as order transfers do (the confirmer proves their block is in the
 * solidified chain with CONFIRMATIONS on top). Confirming one records deposit_confirmed, credits
 * the merchant's ledger balance, enqueues its deposit.confirmed webhook and, when sweeping is on,
 * makes its address due for a sweep by balance, all in one transaction. Set-based: a block's
 * deposits, however many, cost a fixed handful of statements (the update, their events, one
 * statement for all their ledger transactions, their webhooks, the sweeps they make due).
 * Safe to run twice: only `detected` rows change.
 */
import { storedCurrency, type ChainId } from "../chains/chain-types.js";
import { and, asc, eq, inArray, lte } from "drizzle-orm";
import type { Context } from "../context.js";
import { depositAddresses, depositEvents, deposits } from "../db/schema.js";
import { newId } from "../ids.js";
import { creditMerchants } from "../ledger/post-ledger.js";
import { formatAmount } from "../money.js";
import { enqueueDepositWebhooks } from "./deposit-webhook.js";
import { queueStaticSweeps } from "./sweep-static-addresses.js";

export interface SeenDeposit {
  id: string;
  blockNumber: number;
  blockHash: string;
}

/** Detected deposits with at least CONFIRMATIONS confirmations as of `scannedHead`. */
export async function listConfirmableDeposits(
  ctx: Context,
  scannedHead: number,
  limit = 500,
  chain: ChainId = ctx.chains.primary.id,
): Promise<SeenDeposit[]> {
  const highest = scannedHead - ctx.config.confirmations + 1;
  const rows = await ctx.db
    .select({ id: deposits.id, blockNumber: deposits.blockNumber, blockHash: deposits.blockHash })
    .from(deposits)
    .where(
      and(eq(deposits.status, "detected"), eq(deposits.chain, chain), lte(deposits.blockNumber, highest)),
    )
    .orderBy(asc(deposits.blockNumber), asc(deposits.logIndex))
    .limit(limit);
  return rows.map((r) => ({ ...r, blockNumber: Number(r.blockNumber) }));
}

export async function confirmDeposits(
  ctx: Context,
  ids: readonly string[],
  scannedHead: number,
): Promise<number> {
  if (ids.length === 0) return 0;
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const confirmed = await tx
      .update(deposits)
      .set({ status: "confirmed", confirmedAt: now, updatedAt: now })
      .where(and(inArray(deposits.id, [...ids]), eq(deposits.status, "detected")))
      .returning();
    if (confirmed.length === 0) return 0;
    const refs = await tx
      .select({ id: depositAddresses.id, customerRef: depositAddresses.customerRef })
      .from(depositAddresses)
      .where(inArray(depositAddresses.id, [...new Set(confirmed.map((d) => d.depositAddressId))]));
    const refById = new Map(refs.map((r) => [r.id, r.customerRef]));
    await tx.insert(depositEvents).values(
      confirmed.map((d) => ({
        id: newId(),
        depositId: d.id,
        eventType: "deposit_confirmed",
        payload: { tx_hash: d.txHash, amount: formatAmount(d.amount), block_number: d.blockNumber },
        createdAt: now,
      })),
    );
    // Credited whatever its flags (below the minimum, disabled address): the money is ours. One
    // ledger transaction per deposit, all written by one statement.
    await creditMerchants(
      tx,
      confirmed.map((deposit) => ({
        merchantId: deposit.merchantId,
        currency: storedCurrency(deposit.currency),
        amount: deposit.amount,
        kind: "deposit_confirmed",
        refType: "deposit",
        refId: deposit.id,
        at: now,
      })),
    );
    await enqueueDepositWebhooks(
      ctx,
      tx,
      confirmed.map((deposit) => ({
        deposit,
        customerRef: refById.get(deposit.depositAddressId) ?? "",
        event: "deposit.confirmed" as const,
        confirmations: Math.max(ctx.config.confirmations, scannedHead - deposit.blockNumber + 1),
        at: now,
      })),
    );
    ctx.log.info({ deposits: confirmed.length }, "deposits confirmed");
    await queueStaticSweeps(ctx, tx, [...new Set(confirmed.map((d) => d.depositAddressId))]);
    return confirmed.length;
  });
}
