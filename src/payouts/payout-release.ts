/**
 * The end of a send round: every payout it advanced gives its lease back and is scheduled for its
 * next look, with what the sender learnt of its live transaction (sent, seen in a block, dropped by
 * a fork), all in one statement. One statement is one commit: a payout's note and its release are
 * never split, and a worker that dies before it leaves its leases to expire.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { SEEN_AGAIN } from "../sweeps/missing-sightings.js";

/** What the sender learnt of a live transaction, written with the release. */
export type TxNote =
  | { kind: "sent"; txHash: string }
  | { kind: "seen"; txHash: string; block: number }
  | { kind: "dropped"; txHash: string };

export interface Release {
  id: string;
  /** the next look, this long after the release */
  delayMs: number;
  /** or at this time (clock ms) when set: a time the round worked out before its end */
  dueAtMs?: number;
  /** last_error to write (unchanged when undefined) */
  lastError?: string;
  /** why the payout waits (payout-float.ts), or null */
  waitReason?: "float_low" | null;
  tx?: TxNote;
}

const list = (items: SQL[]) => sql.join(items, sql`, `);

/** The notes' updates of payout_transactions, as CTEs of the release (each runs once). */
function noteCtes(ctx: Context, notes: TxNote[]): SQL[] {
  const ctes: SQL[] = [];
  const sent = notes.filter((n) => n.kind === "sent").map((n) => sql`${n.txHash}`);
  if (sent.length > 0) {
    ctes.push(sql`sent AS (UPDATE payout_transactions SET state = 'sent'
      WHERE tx_hash IN (${list(sent)}) AND state = 'signed' RETURNING 1)`);
  }
  // Seen in a block now (included_at kept from the first sighting), or in none (a fork dropped it).
  const seen = notes.flatMap((n) =>
    n.kind === "seen" ? [sql`(${n.txHash}::text, ${n.block}::bigint)`] : [],
  );
  if (seen.length > 0) {
    ctes.push(sql`seen AS (UPDATE payout_transactions t SET state = 'sent', block_number = s.block, ${SEEN_AGAIN},
        included_at = coalesce(t.included_at, ${ctx.clock.now().toISOString()}::timestamptz)
      FROM (VALUES ${list(seen)}) AS s(tx_hash, block)
      WHERE t.tx_hash = s.tx_hash AND t.state IN ('signed', 'sent') RETURNING 1)`);
  }
  const dropped = notes.filter((n) => n.kind === "dropped").map((n) => sql`${n.txHash}`);
  if (dropped.length > 0) {
    ctes.push(sql`dropped AS (UPDATE payout_transactions SET state = 'sent', block_number = NULL, included_at = NULL
      WHERE tx_hash IN (${list(dropped)}) AND state IN ('signed', 'sent') RETURNING 1)`);
  }
  return ctes;
}

/** Gives back the leases `owner` still holds of the released payouts, with their notes: one statement. */
export async function releasePayouts(ctx: Context, owner: string, releases: Release[]): Promise<void> {
  if (releases.length === 0) return;
  const now = ctx.clock.now().getTime();
  const byId = new Map(releases.map((r) => [r.id, r]));
  const values = [...byId.values()].map(
    (r) =>
      sql`(${r.id}::uuid, ${new Date(r.dueAtMs ?? now + r.delayMs).toISOString()}::timestamptz, ${r.waitReason ?? null}::text,
           ${r.lastError?.slice(0, 500) ?? null}::text, ${r.lastError === undefined}::boolean)`,
  );
  const notes = [...byId.values()].flatMap((r) => (r.tx ? [r.tx] : []));
  const ctes = [sql`v(id, next_at, wait_reason, last_error, keep_error) AS (VALUES ${list(values)})`];
  ctes.push(...noteCtes(ctx, notes));
  await ctx.db.execute(
    sql`WITH ${list(ctes)}
        UPDATE payouts p SET lease_owner = NULL, lease_expires_at = NULL, next_attempt_at = v.next_at,
          wait_reason = v.wait_reason, last_error = CASE WHEN v.keep_error THEN p.last_error ELSE v.last_error END
        FROM v WHERE p.id = v.id AND p.lease_owner = ${owner}`,
  );
}
