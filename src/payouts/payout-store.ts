/**
 * The payout sender's reads and writes: the claim under a lease, the round's rows with their live
 * transactions, the store of a signed transaction before its broadcast, the release that schedules
 * the next look (with what the sender learnt of the transaction, in one statement), and the end of
 * a payout once its transaction is solidified. Every write after the claim is guarded by the lease,
 * and every change of a payout's status goes through transitionPayout.
 */
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { payouts } from "../db/schema.js";
import { formatAmount } from "../money.js";
import type { TransactionInfo } from "@stablegate/tron/node-types";
import type { TransactionJson } from "@stablegate/tron/protobuf";
import { SEEN_AGAIN } from "../sweeps/missing-sightings.js";
import type { PayoutRow } from "./payout-types.js";
import { transitionPayout } from "./transition-payout.js";

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

/** Leases up to `limit` due payouts to `owner`, oldest approval first; returns their ids. */
export async function claimDuePayouts(
  ctx: Context,
  owner: string,
  limit: number,
  leaseMs: number,
): Promise<string[]> {
  const now = ctx.clock.now();
  const rows = await queryRows<{ id: string }>(
    ctx.db,
    sql`UPDATE payouts SET lease_owner = ${owner},
          lease_expires_at = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
        WHERE id IN (
          SELECT id FROM payouts
          WHERE status IN ('approved', 'sending')
            AND (next_attempt_at IS NULL OR next_attempt_at <= ${now.toISOString()}::timestamptz)
            AND (lease_expires_at IS NULL OR lease_expires_at <= ${now.toISOString()}::timestamptz)
          ORDER BY approved_at
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

/** What the sender learnt of a live transaction, written with the release. */
export type TxNote =
  | { kind: "sent"; txHash: string }
  | { kind: "seen"; txHash: string; block: number }
  | { kind: "dropped"; txHash: string };

function noteSql(ctx: Context, note: TxNote): SQL {
  if (note.kind === "sent") {
    return sql`UPDATE payout_transactions SET state = 'sent' WHERE tx_hash = ${note.txHash} AND state = 'signed'`;
  }
  // Seen in a block now (included_at kept from the first sighting), or in none (a fork dropped it).
  return note.kind === "seen"
    ? sql`UPDATE payout_transactions SET state = 'sent', block_number = ${note.block}, ${SEEN_AGAIN},
            included_at = coalesce(included_at, ${ctx.clock.now().toISOString()}::timestamptz)
          WHERE tx_hash = ${note.txHash} AND state IN ('signed', 'sent')`
    : sql`UPDATE payout_transactions SET state = 'sent', block_number = NULL, included_at = NULL
          WHERE tx_hash = ${note.txHash} AND state IN ('signed', 'sent')`;
}

export interface Release {
  id: string;
  delayMs: number;
  /** last_error to write (unchanged when undefined) */
  lastError?: string;
  /** why the payout waits (payout-float.ts), or null */
  waitReason?: "float_low" | null;
  tx?: TxNote;
}

/**
 * Gives the leases back and schedules each payout's next look, with what the sender learnt of its
 * transaction: one statement per payout, each its own commit (a payout's note and release are never
 * split).
 */
export async function releasePayout(ctx: Context, owner: string, release: Release): Promise<void> {
  const next = new Date(ctx.clock.now().getTime() + release.delayMs);
  await ctx.db.execute(
    sql`${release.tx ? sql`WITH tx AS (${noteSql(ctx, release.tx)}) ` : sql``}
        UPDATE payouts SET lease_owner = NULL, lease_expires_at = NULL,
          next_attempt_at = ${next.toISOString()}::timestamptz, wait_reason = ${release.waitReason ?? null}
          ${release.lastError === undefined ? sql`` : sql`, last_error = ${release.lastError.slice(0, 500)}`}
        WHERE id = ${release.id}::uuid AND lease_owner = ${owner}`,
  );
}

/**
 * Stores the signed transaction and moves the payout to `sending` (or records it signed again), in
 * one transaction, only while this worker still holds the lease and no other transaction of the
 * payout is live (the unique index refuses a second one). Returns the attempt number, 0 when it
 * lost the payout, or "duplicate" when the very same transaction (another payout's, same bytes) is
 * stored already.
 */
export async function storeSigned(
  ctx: Context,
  owner: string,
  id: string,
  signed: TransactionJson,
): Promise<number | "duplicate"> {
  try {
    return await ctx.db.transaction(async (tx) => {
      const [locked] = await tx.select().from(payouts).where(eq(payouts.id, id)).for("update");
      if (
        !locked ||
        locked.leaseOwner !== owner ||
        (locked.status !== "approved" && locked.status !== "sending")
      ) {
        return 0;
      }
      const attempt = locked.attempts + 1;
      const now = ctx.clock.now();
      await tx.execute(
        sql`INSERT INTO payout_transactions (tx_hash, payout_id, attempt, signed, expiration_ms, mode, state, created_at)
            VALUES (${signed.txID}, ${id}::uuid, ${attempt}, ${JSON.stringify(signed)}::jsonb,
                    ${signed.raw_data.expiration}, ${ctx.config.sweepMode}, 'signed', ${now.toISOString()}::timestamptz)`,
      );
      const first = locked.status === "approved";
      await transitionPayout(ctx, tx, {
        payout: locked,
        to: "sending",
        event: `${locked.kind}_${first ? "sending" : "resigned"}`,
        payload: { tx_hash: signed.txID, attempt },
        patch: {
          attempts: attempt,
          txHash: signed.txID,
          lastError: null,
          waitReason: null,
          ...(first ? { sentAt: now } : {}),
        },
      });
      return attempt;
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; constraint?: string } }).cause;
    if (cause?.code === "23505") return cause.constraint === "payout_transactions_pkey" ? "duplicate" : 0;
    throw error;
  }
}

/** Marks a live transaction expired: it can never land, so the next round signs a new one. */
export async function markExpired(ctx: Context, txHash: string): Promise<void> {
  await ctx.db.execute(
    sql`UPDATE payout_transactions SET state = 'expired' WHERE tx_hash = ${txHash} AND state IN ('signed', 'sent')`,
  );
}

/**
 * Ends a payout whose transaction is solidified: its transaction's receipt, then completed (the
 * reservation settled) or failed on chain (`failed`: the reason; the reservation released), with
 * the TRX its transactions burnt. "lost" when it is no longer sending.
 */
export async function finishPayout(
  ctx: Context,
  id: string,
  txHash: string,
  info: TransactionInfo,
  failed: string | null,
): Promise<"completed" | "failed" | "lost"> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(payouts).where(eq(payouts.id, id)).for("update");
    if (!locked || locked.status !== "sending") return "lost";
    await tx.execute(
      sql`UPDATE payout_transactions SET state = ${failed ? "failed" : "solid"}, result = ${failed ?? "SUCCESS"},
            fee_sun = ${String(info.fee ?? 0)}::numeric,
            energy_fee_sun = ${String(info.receipt?.energy_fee ?? 0)}::numeric,
            net_fee_sun = ${String(info.receipt?.net_fee ?? 0)}::numeric,
            energy_used = ${String(info.receipt?.energy_usage_total ?? 0)}::bigint,
            net_usage = ${String(info.receipt?.net_usage ?? 0)}::bigint,
            block_number = ${info.blockNumber ?? null}, landed_at = ${now.toISOString()}::timestamptz
          WHERE tx_hash = ${txHash}`,
    );
    const [spent] = await queryRows<{ total: string }>(
      tx,
      sql`SELECT coalesce(sum(fee_sun), 0)::text AS total FROM payout_transactions WHERE payout_id = ${id}::uuid`,
    );
    const burnt = BigInt(spent?.total ?? "0");
    const common = {
      txHash,
      trxBurntSun: burnt,
      energyUsed: BigInt(info.receipt?.energy_usage_total ?? 0),
      leaseOwner: null,
      leaseExpiresAt: null,
    };
    if (failed) {
      await transitionPayout(ctx, tx, {
        payout: locked,
        to: "failed",
        event: `${locked.kind}_failed`,
        payload: { tx_hash: txHash, reason: failed, trx_burnt: formatAmount(burnt) },
        patch: { ...common, failedAt: now, lastError: `transaction failed on chain: ${failed}` },
      });
      ctx.log.error({ txHash, reason: failed }, "payout failed on chain; reservation released");
      return "failed";
    }
    await transitionPayout(ctx, tx, {
      payout: locked,
      to: "completed",
      event: `${locked.kind}_completed`,
      payload: { tx_hash: txHash, trx_burnt: formatAmount(burnt), block_number: info.blockNumber ?? null },
      patch: { ...common, completedAt: now, lastError: null },
    });
    ctx.log.info({ txHash, amount: formatAmount(locked.amount) }, "payout completed");
    return "completed";
  });
}
