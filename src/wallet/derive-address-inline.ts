/**
 * The fallback when the pool is empty, on the request path. Inline derivations queue on an
 * advisory lock. Whoever holds it first derives a block of INLINE_BLOCK_SIZE addresses (the
 * creations queued behind it need one each), reserving their indexes from address_pool_state, the
 * one row every writer of the pool's chain goes through (migration 0013); the others find the
 * pool no longer empty and derive nothing.
 *  - replenishPoolInline: in a short transaction of its own, committed at once, so the block serves
 *    every waiting creation through the ordinary batched creation statement;
 *  - deriveAddressInline: inside the caller's transaction (lock held until it ends), which then
 *    always finds a free address: the one locked here, or the block no one else can see yet. The
 *    last resort, for a creation that kept losing the fresh addresses to others.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";
import { reserveAndInsertAddresses } from "./fill-address-pool.js";

/** Advisory lock key of inline derivation (see src/db/locks.ts for the other keys). */
export const INLINE_DERIVATION_LOCK = 740_100_101;
/** Addresses one inline derivation adds: one creation batch (about 15 ms of derivation on one core). */
export const INLINE_BLOCK_SIZE = 64;

/**
 * Makes the pool non-empty: derives and commits a block unless another creation did so while this
 * one waited for the lock. Returns the number of addresses derived.
 */
export async function replenishPoolInline(ctx: Context): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    await queryRows(tx, sql`SELECT pg_advisory_xact_lock(${INLINE_DERIVATION_LOCK})`);
    const [pool] = await queryRows<{ free: string }>(
      tx,
      sql`SELECT coalesce(sum(free), 0)::text AS free FROM address_pool_counts`,
    );
    if (Number(pool?.free ?? 0) > 0) return 0;
    await reserveAndInsertAddresses(ctx, tx, INLINE_BLOCK_SIZE);
    return INLINE_BLOCK_SIZE;
  });
}

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
