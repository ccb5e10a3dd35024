/** An address pool's counters and next index, as the filler and the free list's vacuum read them. */
import { sql } from "drizzle-orm";
import type { ChainFamilyName } from "../chains/chain-types.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";

export interface PoolState {
  free: number;
  /** Addresses ever taken from the pool (free -> allocated), monotonic. */
  taken: number;
  nextIndex: number;
}

/** The pool of `family`, or every pool summed when no family is given. */
export async function readPoolState(db: Executor, family?: ChainFamilyName): Promise<PoolState> {
  const of = family === undefined ? sql`true` : sql`family = ${family}`;
  const result = await queryRows<{ free: string; taken: string; next_index: string }>(
    db,
    sql`
    SELECT (SELECT coalesce(sum(free), 0) FROM address_pool_counts WHERE ${of})::text AS free,
           (SELECT coalesce(sum(taken), 0) FROM address_pool_counts WHERE ${of})::text AS taken,
           (SELECT coalesce(sum(next_index), 0) FROM address_pool_state WHERE ${of})::text AS next_index`,
  );
  const row = result[0];
  return {
    free: Number(row?.free ?? 0),
    taken: Number(row?.taken ?? 0),
    nextIndex: Number(row?.next_index ?? 0),
  };
}
