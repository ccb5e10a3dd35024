/**
 * The payout sender's reads and writes: the claim under a lease, the round's rows with their live
 * transactions, the store of a round's signed transactions before their broadcast (one database
 * transaction for the round), and the end of the payouts whose transactions a round found
 * solidified (one database transaction for the round). The
 * release that ends a round is payout-release.ts. Every write after the claim is guarded by the
 * lease, and every change of a payout's status goes through transitionPayout (or, for a round's
 * move to `sending`, its batch form transitionToSending).
 */
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { ChainId } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { payouts } from "../db/schema.js";
import { formatAmount } from "../money.js";
import { holderGone } from "../db/lease-holder.js";
import type { TransactionInfo } from "@stablegate/tron/node-types";
import type { TransactionJson } from "@stablegate/tron/protobuf";
import type { PayoutRow } from "./payout-types.js";
import { transitionPayout, transitionToSending } from "./transition-payout.js";

/** A payout's live (signed or sent) transaction; a unique index allows one per payout. */
export interface LiveTx extends Record<string, unknown> {
  payout_id: string;
  tx_hash: string;
  attempt: number;
  state: "signed" | "sent";
  signed: TransactionJson;
  /** The block the sender last saw it in (not yet solidified), or null. */
  block_number: string | null;
}

/** A claimed payout as the round advances it. */
export interface ClaimedPayout {
  row: PayoutRow;
  live: LiveTx | undefined;
}

export interface ClaimOptions {
  /** The chain whose payouts are claimed (default TRON). */
  chain?: ChainId;
  /**
   * A condition on a sending payout (`p`) that says its transaction is in flight and the sender
   * has nothing to do for it yet: such payouts are not claimed, so they take no round's room.
   */
  inFlight?: SQL;
}

/**
 * Leases up to `limit` due payouts of a chain to `owner`, oldest approval first; returns their ids.
 * Due: approved or sending, its next look reached, and its lease expired or its holder gone (a
 * lease owner named by a worker's liveness lock that no session holds: src/db/lease-holder.ts).
 * The rule for every sender, TRON's and each EVM chain's.
 */
export async function claimDuePayouts(
  ctx: Context,
  owner: string,
  limit: number,
  leaseMs: number,
  options: ClaimOptions = {},
): Promise<string[]> {
  const now = ctx.clock.now();
  const at = sql`${now.toISOString()}::timestamptz`;
  const gone = ctx.database.kind === "postgres" ? sql`OR ${holderGone(sql.raw("p.lease_owner"))}` : sql``;
  const busy = options.inFlight ? sql`AND NOT (p.status = 'sending' AND ${options.inFlight})` : sql``;
  const rows = await queryRows<{ id: string }>(
    ctx.db,
    sql`UPDATE payouts SET lease_owner = ${owner},
          lease_expires_at = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
        WHERE id IN (
          SELECT id FROM payouts p
          WHERE p.status IN ('approved', 'sending') AND p.chain = ${options.chain ?? "tron"}
            AND (p.next_attempt_at IS NULL OR p.next_attempt_at <= ${at})
            AND (p.lease_expires_at IS NULL OR p.lease_expires_at <= ${at} ${gone})
            ${busy}
          ORDER BY p.approved_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING id::text AS id`,
  );
  return rows.map((row) => row.id);
}

/**
 * The payouts of `ids` this worker still holds, approved or sending, each with its live
 * transaction: two statements for the whole round.
 */
export async function loadClaimed(ctx: Context, ids: string[], owner: string): Promise<ClaimedPayout[]> {
  if (ids.length === 0) return [];
  const rows = await ctx.db
    .select()
    .from(payouts)
    .where(
      and(
        inArray(payouts.id, ids),
        eq(payouts.leaseOwner, owner),
        inArray(payouts.status, ["approved", "sending"]),
      ),
    );
  const live = await queryRows<LiveTx>(
    ctx.db,
    sql`SELECT payout_id::text AS payout_id, tx_hash, attempt, state, signed, block_number::text AS block_number
        FROM payout_transactions
        WHERE payout_id IN (${sql.join(
          ids.map((id) => sql`${id}::uuid`),
          sql`, `,
        )}) AND state IN ('signed', 'sent')`,
  );
  const byPayout = new Map(live.map((tx) => [tx.payout_id, tx]));
  const order = new Map(ids.map((id, i) => [id, i]));
  return rows
    .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0))
    .map((row) => ({ row, live: byPayout.get(row.id) }));
}

/** A signed transaction to store for a payout of the round. */
export interface ToStore {
  id: string;
  signed: TransactionJson;
}

/**
 * Stores a round's signed transactions and moves their payouts to `sending` (or records them signed
 * again), in one database transaction, before any of them is broadcast; only the payouts this
 * worker still holds (its lease, approved or sending) with no other live transaction (the unique
 * index refuses a second one). Per payout: the attempt number, 0 when it lost the payout, or
 * "duplicate" when the very same transaction (another payout's, same bytes) is stored already.
 */
export async function storeSigned(
  ctx: Context,
  owner: string,
  batch: readonly ToStore[],
): Promise<Map<string, number | "duplicate">> {
  const result = new Map<string, number | "duplicate">(batch.map((b) => [b.id, 0]));
  if (batch.length === 0) return result;
  await ctx.db.transaction(async (tx) => {
    const locked = await tx
      .select()
      .from(payouts)
      .where(inArray(payouts.id, [...result.keys()]))
      .orderBy(payouts.id)
      .for("update");
    const held = new Map(
      locked
        .filter((row) => row.leaseOwner === owner && (row.status === "approved" || row.status === "sending"))
        .map((row) => [row.id, row]),
    );
    const rows = batch.flatMap(({ id, signed }) => {
      const payout = held.get(id);
      return payout ? [{ payout, signed, attempt: payout.attempts + 1 }] : [];
    });
    if (rows.length === 0) return;
    const now = ctx.clock.now().toISOString();
    const inserted = await queryRows<{ tx_hash: string }>(
      tx,
      sql`INSERT INTO payout_transactions (tx_hash, payout_id, attempt, signed, expiration_ms, mode, state, created_at)
          VALUES ${sql.join(
            rows.map(
              ({ payout, signed, attempt }) =>
                sql`(${signed.txID}, ${payout.id}::uuid, ${attempt}, ${JSON.stringify(signed)}::jsonb,
                     ${signed.raw_data.expiration}, ${ctx.config.sweepMode}, 'signed', ${now}::timestamptz)`,
            ),
            sql`, `,
          )}
          ON CONFLICT DO NOTHING
          RETURNING tx_hash`,
    );
    const stored = new Set(inserted.map((r) => r.tx_hash));
    const refused = rows.filter((r) => !stored.has(r.signed.txID));
    if (refused.length > 0) {
      // Refused by the primary key (the same bytes stored already) or by the one-live index (lost).
      const taken = await queryRows<{ tx_hash: string }>(
        tx,
        sql`SELECT tx_hash FROM payout_transactions WHERE tx_hash IN (${sql.join(
          refused.map((r) => sql`${r.signed.txID}`),
          sql`, `,
        )})`,
      );
      const duplicates = new Set(taken.map((r) => r.tx_hash));
      for (const r of refused) if (duplicates.has(r.signed.txID)) result.set(r.payout.id, "duplicate");
    }
    const sending = rows.filter((r) => stored.has(r.signed.txID));
    await transitionToSending(
      ctx,
      tx,
      sending.map(({ payout, signed, attempt }) => ({ payout, txHash: signed.txID, attempt })),
    );
    for (const r of sending) result.set(r.payout.id, r.attempt);
  });
  return result;
}

/** Marks a live transaction expired: it can never land, so the next round signs a new one. */
export async function markExpired(ctx: Context, txHash: string): Promise<void> {
  await ctx.db.execute(
    sql`UPDATE payout_transactions SET state = 'expired' WHERE tx_hash = ${txHash} AND state IN ('signed', 'sent')`,
  );
}

/** A payout whose transaction the round found solidified: its receipt, and the failure if any. */
export interface Landed {
  id: string;
  txHash: string;
  info: TransactionInfo;
  /** the on-chain failure (REVERT, OUT_OF_ENERGY...), or null for SUCCESS */
  failed: string | null;
}

/**
 * Ends the payouts whose transactions a round found solidified, in one database transaction: their
 * rows locked (in id order, as storeSigned locks), every transaction's receipt in one UPDATE, the
 * TRX each payout's transactions burnt in one read, then each payout completed (the reservation
 * settled) or failed on chain (the reservation released) through transitionPayout. Per payout:
 * "completed", "failed", or "lost" when it is no longer sending (another worker ended it).
 */
export async function finishPayouts(
  ctx: Context,
  landed: readonly Landed[],
): Promise<Map<string, "completed" | "failed" | "lost">> {
  const result = new Map<string, "completed" | "failed" | "lost">(landed.map((l) => [l.id, "lost"]));
  if (landed.length === 0) return result;
  const now = ctx.clock.now();
  const ids = (items: readonly { id: string }[]) =>
    sql.join(
      items.map((l) => sql`${l.id}::uuid`),
      sql`, `,
    );
  await ctx.db.transaction(async (tx) => {
    const locked = await tx
      .select()
      .from(payouts)
      .where(inArray(payouts.id, [...result.keys()]))
      .orderBy(payouts.id)
      .for("update");
    const sending = new Map(locked.filter((row) => row.status === "sending").map((row) => [row.id, row]));
    const todo = landed.filter((l) => sending.has(l.id));
    if (todo.length === 0) return;
    const receipts = todo.map(
      ({ txHash, info, failed }) =>
        sql`(${txHash}::text, ${failed ? "failed" : "solid"}::text, ${failed ?? "SUCCESS"}::text,
             ${String(info.fee ?? 0)}::numeric, ${String(info.receipt?.energy_fee ?? 0)}::numeric,
             ${String(info.receipt?.net_fee ?? 0)}::numeric,
             ${String(info.receipt?.energy_usage_total ?? 0)}::bigint,
             ${String(info.receipt?.net_usage ?? 0)}::bigint, ${info.blockNumber ?? null}::bigint)`,
    );
    await tx.execute(
      sql`UPDATE payout_transactions t SET state = v.state, result = v.result, fee_sun = v.fee,
            energy_fee_sun = v.energy_fee, net_fee_sun = v.net_fee, energy_used = v.energy_used,
            net_usage = v.net_usage, block_number = v.block, landed_at = ${now.toISOString()}::timestamptz
          FROM (VALUES ${sql.join(receipts, sql`, `)})
            AS v(tx_hash, state, result, fee, energy_fee, net_fee, energy_used, net_usage, block)
          WHERE t.tx_hash = v.tx_hash`,
    );
    const spent = await queryRows<{ payout_id: string; total: string }>(
      tx,
      sql`SELECT payout_id::text AS payout_id, coalesce(sum(fee_sun), 0)::text AS total
          FROM payout_transactions WHERE payout_id IN (${ids(todo)}) GROUP BY payout_id`,
    );
    const burntOf = new Map(spent.map((r) => [r.payout_id, BigInt(r.total)]));
    for (const { id, txHash, info, failed } of todo) {
      const payout = sending.get(id) as PayoutRow;
      const burnt = burntOf.get(id) ?? 0n;
      const common = {
        txHash,
        trxBurntSun: burnt,
        energyUsed: BigInt(info.receipt?.energy_usage_total ?? 0),
        leaseOwner: null,
        leaseExpiresAt: null,
      };
      if (failed) {
        await transitionPayout(ctx, tx, {
          payout,
          to: "failed",
          event: `${payout.kind}_failed`,
          payload: { tx_hash: txHash, reason: failed, trx_burnt: formatAmount(burnt) },
          patch: { ...common, failedAt: now, lastError: `transaction failed on chain: ${failed}` },
        });
        ctx.log.error({ txHash, reason: failed }, "payout failed on chain; reservation released");
        result.set(id, "failed");
        continue;
      }
      await transitionPayout(ctx, tx, {
        payout,
        to: "completed",
        event: `${payout.kind}_completed`,
        payload: { tx_hash: txHash, trx_burnt: formatAmount(burnt), block_number: info.blockNumber ?? null },
        patch: { ...common, completedAt: now, lastError: null },
      });
      ctx.log.info({ txHash, amount: formatAmount(payout.amount) }, "payout completed");
      result.set(id, "completed");
    }
  });
  return result;
}
