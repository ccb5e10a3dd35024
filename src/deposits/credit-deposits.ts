/**
 * The scanner's side of static addresses: a watched-token transfer to a static address is a deposit
 * in that token's currency on the chain it was seen on, recorded in the scanner's transaction (with
 * the cursor advance), once per (chain, tx_hash, log_index) among the deposits not reverted. A
 * replay inserts nothing and changes nothing; one EVM address paid on two chains has two deposits.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { depositEvents, deposits, type DepositAddressStatus } from "../db/schema.js";
import { newId } from "../ids.js";
import { formatAmount } from "../money.js";
import type { ChainTransfer } from "../payments/apply-transfers.js";
import { enqueueDepositWebhook } from "./deposit-webhook.js";
import type { DepositRow } from "./deposit-address-view.js";

export interface StaticHolder {
  depositAddressId: string;
  merchantId: string;
  customerRef: string;
  status: DepositAddressStatus;
  notifyDetected: boolean;
}

/** Recipient address -> the static deposit address it is (only addresses that are one). */
export async function staticHoldersByAddress(
  tx: Executor,
  recipients: readonly string[],
): Promise<Map<string, StaticHolder>> {
  const unique = [...new Set(recipients)];
  const out = new Map<string, StaticHolder>();
  if (unique.length === 0) return out;
  const rows = await queryRows<{
    address: string;
    id: string;
    merchant_id: string;
    customer_ref: string;
    status: DepositAddressStatus;
    notify_detected: boolean;
  }>(
    tx,
    sql`SELECT address, id::text AS id, merchant_id::text AS merchant_id, customer_ref, status, notify_detected
        FROM deposit_addresses WHERE address = ANY(string_to_array(${unique.join(",")}, ','))`,
  );
  for (const row of rows) {
    out.set(row.address, {
      depositAddressId: row.id,
      merchantId: row.merchant_id,
      customerRef: row.customer_ref,
      status: row.status,
      notifyDetected: row.notify_detected,
    });
  }
  return out;
}

/**
 * Records the deposits among `candidates` (in chain order) whose recipient is a static address.
 * `scannedHead` is the newest block of the batch (for the detected webhook's confirmations).
 * Returns how many deposits were newly recorded.
 */
export async function creditDeposits(
  ctx: Context,
  tx: Executor,
  candidates: readonly ChainTransfer[],
  holders: ReadonlyMap<string, StaticHolder>,
  scannedHead: number,
): Promise<number> {
  const matched = candidates.filter((c) => holders.has(c.to));
  if (matched.length === 0) return 0;
  const now = ctx.clock.now();
  const rows = matched.map((t) => {
    const holder = holders.get(t.to) as StaticHolder;
    return {
      id: newId(),
      depositAddressId: holder.depositAddressId,
      merchantId: holder.merchantId,
      txHash: t.txHash,
      logIndex: t.logIndex,
      blockNumber: t.blockNumber,
      blockHash: t.blockHash,
      blockTimestamp: t.blockTimestamp,
      fromAddress: t.from,
      toAddress: t.to,
      amount: t.amount,
      // what an 18-decimal token carried below one micro-unit: kept, never credited
      remainder: t.remainder,
      tokenDecimals: t.decimals ?? 6,
      chain: t.chain,
      currency: t.currency,
      status: "detected" as const,
      belowMinimum: t.amount < ctx.config.depositMinUsdt,
      addressStatus: holder.status,
      detectedAt: now,
      createdAt: now,
      updatedAt: now,
    };
  });
  const inserted: DepositRow[] = [];
  for (let i = 0; i < rows.length; i += 1000) {
    const done = await tx
      .insert(deposits)
      .values(rows.slice(i, i + 1000))
      .onConflictDoNothing({
        target: [deposits.chain, deposits.txHash, deposits.logIndex],
        where: sql`status <> 'reverted'`,
      })
      .returning();
    inserted.push(...done);
  }
  if (inserted.length === 0) return 0;

  const events: (typeof depositEvents.$inferInsert)[] = [];
  for (const deposit of inserted) {
    const holder = holders.get(deposit.toAddress) as StaticHolder;
    const payload = {
      tx_hash: deposit.txHash,
      amount: formatAmount(deposit.amount),
      currency: deposit.currency,
      chain: deposit.chain,
      from_address: deposit.fromAddress,
      block_number: deposit.blockNumber,
      below_minimum: deposit.belowMinimum,
    };
    events.push({
      id: newId(),
      depositId: deposit.id,
      eventType: "deposit_detected",
      payload,
      createdAt: now,
    });
    if (deposit.addressStatus === "disabled") {
      // Credited all the same: the money is on our address. The incident tells an operator.
      events.push({
        id: newId(),
        depositId: deposit.id,
        eventType: "deposit_to_disabled_address",
        payload: { ...payload, deposit_address_id: deposit.depositAddressId },
        createdAt: now,
      });
      ctx.log.warn(
        { depositId: deposit.id, depositAddressId: deposit.depositAddressId, txHash: deposit.txHash },
        "deposit to a disabled address",
      );
    }
    if (holder.notifyDetected) {
      await enqueueDepositWebhook(ctx, tx, {
        deposit,
        customerRef: holder.customerRef,
        event: "deposit.detected",
        confirmations: Math.max(1, scannedHead - deposit.blockNumber + 1),
        at: deposit.detectedAt,
      });
    }
    ctx.log.info(
      {
        depositId: deposit.id,
        chain: deposit.chain,
        txHash: deposit.txHash,
        amount: formatAmount(deposit.amount),
        currency: deposit.currency,
      },
      "deposit detected",
    );
  }
  await tx.insert(depositEvents).values(events);
  return inserted.length;
}
