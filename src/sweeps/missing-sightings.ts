/**
 * When a signed transaction counts as expired, for payouts and sweeps alike (docs/payouts.md
 * "Judged on one node"): a round is pinned to one node, and a transaction is expired only when that
 * node's solidified head is past its expiration and its solidified chain still lacks it, seen on
 * MISSING_ROUNDS_TO_EXPIRE separate rounds. Each such round is counted on the transaction's row; any
 * sighting of the transaction (in a block or solidified) resets the count.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";

export const MISSING_ROUNDS_TO_EXPIRE = 2;

export type SignedTxTable = "payout_transactions" | "sweep_transactions";

/** The SET clause that forgets the rounds a transaction was missed: it was seen. */
export const SEEN_AGAIN: SQL = sql`missing_seen_count = 0, missing_seen_at = NULL`;

/**
 * Counts one round whose pinned node was past the transaction's expiration and lacked it; returns
 * the rounds counted in a row, this one included. A transaction without a row (never stored by this
 * service) cannot be counted across rounds and is judged on this round alone.
 */
export async function noteMissing(ctx: Context, table: SignedTxTable, txHash: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    ctx.db,
    sql`UPDATE ${sql.identifier(table)}
        SET missing_seen_count = missing_seen_count + 1, missing_seen_at = ${ctx.clock.now().toISOString()}::timestamptz
        WHERE tx_hash = ${txHash} RETURNING missing_seen_count AS n`,
  );
  return row ? Number(row.n) : MISSING_ROUNDS_TO_EXPIRE;
}
