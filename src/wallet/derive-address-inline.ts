/**
 * The fallback when the pool is empty: make a free address available to an order creation's own
 * transaction. Inline derivations queue on a transaction-level advisory lock (held until the
 * caller's transaction ends). Whoever gets the lock first takes an address another holder left
 * free (each derives a block, not one address: the creations queued behind it need one each); only
 * when there is none does it reserve the next INLINE_BLOCK_SIZE derivation indexes from
 * address_pool_state, the one row every writer of the pool's chain goes through (migration 0013),
 * and derive and insert them. The creation statement that follows in the same transaction then
 * always finds at least one free address: the locked one, or the block that no one else can see
 * before the commit.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";
import { reserveAndInsertAddresses } from "./fill-address-pool.js";

/** Advisory lock key of inline derivation (see src/db/locks.ts for the other keys). */
export const INLINE_DERIVATION_LOCK = 740_100_101;
/** Addresses one inline derivation adds (about 5-10 ms of derivation on one core). */
export const INLINE_BLOCK_SIZE = 32;

/**
 * Returns the number of addresses derived: 0 when a free address was already there (it is now
 * locked by `db`'s transaction), INLINE_BLOCK_SIZE otherwise.
 */
export async function deriveAddressInline(ctx: Context, db: Executor): Promise<number> {
  await queryRows(db, sql`SELECT pg_advisory_xact_lock(${INLINE_DERIVATION_LOCK})`);
  const free = await queryRows<{ id: string }>(
    db,
    sql`SELECT id::text AS id FROM addresses WHERE status = 'free' ORDER BY derivation_index::bigint
        LIMIT 1 FOR UPDATE SKIP LOCKED`,
  );
  if (free.length > 0) return 0;
  await reserveAndInsertAddresses(ctx, db, INLINE_BLOCK_SIZE);
  return INLINE_BLOCK_SIZE;
}
