/**
 * The fallback when the pool is empty, on the request path.
 *  - replenishPoolInline: one block of INLINE_BLOCK_SIZE addresses at a time per process, derived
 *    through the filler's own path (indexes reserved in a short transaction, derived with no lock
 *    or connection held and yielding to the event loop, inserted with the reservation's removal).
 *    Every creation of the process that finds the pool empty meanwhile waits for that block
 *    instead of queueing for a database connection and a lock of its own: a burst on an empty pool
 *    once held all ten pool connections waiting on the advisory lock below while the addresses
 *    others had committed sat free. The block serves them all through the ordinary batched
 *    creation statement.
 *  - deriveAddressInline: inside the caller's transaction (advisory lock held until it ends), which
 *    then always finds a free address: the one locked here, or the block no one else can see yet.
 *    The last resort, for a creation that kept losing the fresh addresses to others.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { localSlot } from "../local-state.js";
import { queryRows } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";
import { fillAddressPool, reserveAndInsertAddresses } from "./fill-address-pool.js";
import { claimFreeAddresses } from "./free-addresses.js";
import type { ChainFamilyName } from "../chains/chain-types.js";
import { addressPool } from "./address-pools.js";

/** Advisory lock key of inline derivation (see src/db/locks.ts for the other keys). */
export const INLINE_DERIVATION_LOCK = 740_100_101;
/** Addresses one inline derivation adds: one creation batch (about 15 ms of derivation on one core). */
export const INLINE_BLOCK_SIZE = 64;

// The block this process is deriving per family, if any.
const inlineBlock = localSlot("inline address block", () => new Map<ChainFamilyName, Promise<number>>());

/**
 * Makes the pool hold at least a block: derives and commits up to INLINE_BLOCK_SIZE addresses, or
 * waits for the block another creation of this process is deriving (then answers 0). Returns the
 * number of addresses this call derived.
 */
export async function replenishPoolInline(ctx: Context, family?: ChainFamilyName): Promise<number> {
  const pool = addressPool(ctx, family).family;
  const blocks = ctx.local.get(inlineBlock);
  const inflight = blocks.get(pool);
  if (inflight) {
    // Its failure is the creation's that started it; the waiters just try the pool again.
    await inflight.catch(() => 0);
    return 0;
  }
  const block = fillAddressPool(ctx, {
    target: INLINE_BLOCK_SIZE,
    batchSize: INLINE_BLOCK_SIZE,
    family: pool,
  })
    .then((result) => result.inserted)
    .finally(() => blocks.delete(pool));
  blocks.set(pool, block);
  return block;
}

/**
 * Returns the number of addresses derived: 0 when a free address was already there (it is now
 * locked by `db`'s transaction), INLINE_BLOCK_SIZE otherwise.
 */
export async function deriveAddressInline(
  ctx: Context,
  db: Executor,
  family?: ChainFamilyName,
): Promise<number> {
  const pool = addressPool(ctx, family).family;
  await queryRows(db, sql`SELECT pg_advisory_xact_lock(${INLINE_DERIVATION_LOCK})`);
  const free = await queryRows<{ id: string }>(
    db,
    // The family is one of the fixed names of chain-types.ts, never input.
    sql.raw(`${claimFreeAddresses("0", `'${pool}'`)} LIMIT 1 FOR UPDATE SKIP LOCKED`),
  );
  if (free.length > 0) return 0;
  await reserveAndInsertAddresses(ctx, db, INLINE_BLOCK_SIZE, pool);
  return INLINE_BLOCK_SIZE;
}
