/**
 * Keeps the pool ahead of the rate at which orders take addresses, so the request path only claims
 * one. The filler reads the free count and the number of addresses ever taken from the pool's
 * counters (address_pool_counts, kept by a trigger on addresses: migration 0013), never by counting
 * addresses. From the taken counter it measures the take rate, and it keeps
 * max(POOL_MIN_FREE, rate x POOL_HEADROOM_SECONDS) addresses free, deriving batches of about one
 * second of takes (at least POOL_BATCH_SIZE, at most POOL_MAX_BATCH_SIZE) per run, on a worker thread
 * (the chain's derivation: src/chains/), so the requests the process serves meanwhile keep the event loop.
 *
 * There is one pool per chain family (address-pools.ts, migration 0022): its own counters, free
 * list, next index and reservations. A filler run derives for one family's pool; the worker's loop
 * runs it for each enabled family.
 *
 * Derivation indexes are reserved from the family's row of address_pool_state, which every writer of
 * the pool goes through (this filler and the inline derivation), so no two writers ever
 * insert the same index. The filler reserves its batch first, in a short transaction that also
 * records the reservation (address_pool_reservations), derives it with no lock held, and inserts
 * it in the transaction that deletes the reservation: the inline derivation never waits for the
 * filler's CPU work and never takes indexes from under it. A reservation left by a filler that died
 * is completed by the next run after RESERVATION_STALE_MS. Safe in any number of workers.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { localSlot } from "../local-state.js";
import { queryRows } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";
import type { ChainFamilyName } from "../chains/chain-types.js";
import { addressPool, addressPools, type AddressPool } from "./address-pools.js";
import { readPoolState, type PoolState } from "./pool-state.js";

export { readPoolState, type PoolState };
export { POOL_VACUUM_TAKES, vacuumFreeAddressesIfDue } from "./vacuum-free-addresses.js";

/** The smallest batch: below it the round trips cost more than the derivation. */
export const POOL_BATCH_SIZE = 100;
/** The largest batch of one run (about 0.2-0.5 s of derivation on one core). */
export const POOL_MAX_BATCH_SIZE = 2_000;
/** The filler's pause between runs while the pool holds its target (a creation that finds it empty wakes it). */
export const POOL_FILLER_INTERVAL_MS = 5_000;
/** The pool holds at least this many seconds of takes at the measured rate. */
export const POOL_HEADROOM_SECONDS = 10;
interface RateSample {
  /** ctx.clock time (ms) of the sample. */
  at: number;
  taken: number;
  rate: number;
}

/** What this process's filler keeps between runs. */
const fillerState = localSlot(
  "address pool filler",
  (): {
    /** The families whose derivation backend was logged. */
    backendLogged: Set<ChainFamilyName>;
    /** The last take-rate measurement per family. */
    samples: Map<ChainFamilyName, RateSample>;
    /** Wakes the filler loop this process runs, if it runs one. */
    wake?: () => void;
  } => ({ backendLogged: new Set(), samples: new Map() }),
);

/**
 * The addresses of `count` indexes from `from` on the order branch, off the event loop. The first
 * call of the process logs which implementation derives them (libsecp256k1, or @noble/curves and why).
 */
async function derivePool(ctx: Context, pool: AddressPool, from: number, count: number): Promise<string[]> {
  const state = ctx.local.get(fillerState);
  if (!state.backendLogged.has(pool.family)) {
    state.backendLogged.add(pool.family);
    const { backend, reason } = pool.derivation.backend();
    if (reason === undefined)
      ctx.log.info({ backend, family: pool.family }, "address pool: deriving with the native libsecp256k1");
    else
      ctx.log.warn(
        { backend, reason, family: pool.family },
        "address pool: deriving with a pure JavaScript implementation (slower)",
      );
  }
  return pool.derivation.deriveAddresses(pool.xpub, from, count);
}

/**
 * Inserts `addresses` (derived for indexes from, from + 1, ...) as free. The caller has reserved
 * the indexes in address_pool_state. With `conflicts: "skip"`, ON CONFLICT DO NOTHING names no
 * index, so it arbitrates both unique indexes (derivation_index and address): a row someone else
 * inserted is skipped, never an error. That costs a speculative insertion per row: a probe of
 * each unique index before the insert (the one on `address` at a random page) and a confirmation
 * record in the WAL. The filler's own batches insert plainly (`"fail"`): the transaction that
 * inserts them first deletes their reservation, so no one else can have inserted those indexes; a
 * conflict would mean a bug, fails the batch, and leaves its reservation for the stale-reservation
 * completion, which skips. Returns how many rows this call inserted.
 */
async function insertAddresses(
  ctx: Context,
  db: Executor,
  family: ChainFamilyName,
  from: number,
  addresses: string[],
  conflicts: "skip" | "fail",
): Promise<number> {
  if (addresses.length === 0) return 0;
  const now = ctx.clock.now().toISOString();
  const result = await queryRows<{ id: string }>(
    db,
    sql`
    INSERT INTO addresses (family, derivation_index, address, status, created_at)
    SELECT ${family}, ${from}::int + ord::int - 1, address, 'free', ${now}::timestamptz
    FROM unnest(${`{${addresses.join(",")}}`}::text[]) WITH ORDINALITY AS derived(address, ord)
    ${conflicts === "skip" ? sql`ON CONFLICT DO NOTHING` : sql``}
    RETURNING id::text AS id`,
  );
  return result.length;
}

/**
 * Takes the next `count` indexes of `family`'s pool in `db`'s transaction (its row of
 * address_pool_state, made on the family's first use, is locked until that transaction ends).
 * Returns the first index.
 */
async function reserveIndexes(db: Executor, family: ChainFamilyName, count: number): Promise<number> {
  const [row] = await queryRows<{ start: number }>(
    db,
    sql`INSERT INTO address_pool_state AS s (family, next_index) VALUES (${family}, ${count}::int)
        ON CONFLICT (family) DO UPDATE SET next_index = s.next_index + ${count}::int
        RETURNING next_index - ${count}::int AS start`,
  );
  return Number(row?.start ?? 0);
}

/**
 * Reserves the next `count` derivation indexes, derives and inserts them as free, all inside `db`'s
 * transaction (the reservation is rolled back with it, so indexes stay contiguous). The row lock on
 * address_pool_state is held until that transaction ends. Returns the first index.
 */
export async function reserveAndInsertAddresses(
  ctx: Context,
  db: Executor,
  count: number,
  family?: ChainFamilyName,
): Promise<number> {
  const pool = addressPool(ctx, family);
  const start = await reserveIndexes(db, pool.family, count);
  await insertAddresses(ctx, db, pool.family, start, await derivePool(ctx, pool, start, count), "skip");
  return start;
}

export interface FillResult {
  inserted: number;
  free: number;
  /** True when the pool is still below its target after this batch. */
  more: boolean;
}

/** A reservation older than this belongs to a filler that died: the next run completes it. */
export const RESERVATION_STALE_MS = 60_000;

/** Derives and inserts one stale reservation, if there is one. Returns the rows inserted, or null. */
async function completeStaleReservation(ctx: Context, pool: AddressPool): Promise<number | null> {
  const before = new Date(ctx.clock.now().getTime() - RESERVATION_STALE_MS).toISOString();
  return ctx.db.transaction(async (tx) => {
    const [stale] = await queryRows<{ from_index: number; count: number }>(
      tx,
      sql`DELETE FROM address_pool_reservations WHERE family = ${pool.family} AND from_index = (
            SELECT from_index FROM address_pool_reservations
            WHERE family = ${pool.family} AND reserved_at < ${before}::timestamptz
            ORDER BY from_index LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING from_index, count`,
    );
    if (!stale) return null;
    const from = Number(stale.from_index);
    const derived = await derivePool(ctx, pool, from, Number(stale.count));
    const inserted = await insertAddresses(ctx, tx, pool.family, from, derived, "skip");
    ctx.log.warn(
      { family: pool.family, from, count: Number(stale.count), inserted },
      "address pool: completed a stale reservation",
    );
    return inserted;
  });
}

const RATE_WINDOW_MS = 1_000;

/** Addresses taken per second of ctx.clock, measured over windows of at least a second between runs. */
function takeRate(ctx: Context, family: ChainFamilyName, pool: PoolState): number {
  const now = ctx.clock.now().getTime();
  const { samples } = ctx.local.get(fillerState);
  const last = samples.get(family);
  if (!last || pool.taken < last.taken) {
    samples.set(family, { at: now, taken: pool.taken, rate: 0 });
    return 0;
  }
  if (now - last.at < RATE_WINDOW_MS) return last.rate;
  const rate = ((pool.taken - last.taken) * 1000) / (now - last.at);
  samples.set(family, { at: now, taken: pool.taken, rate });
  return rate;
}

/**
 * One run of the pool filler for `family`'s pool (the primary chain's by default): derives at most
 * one batch. `target` fixes the number of free addresses to keep (instead of POOL_MIN_FREE or the
 * rate's headroom) and `batchSize` the batch (both for tests and benches); by default both follow
 * the take rate.
 */
export async function fillAddressPool(
  ctx: Context,
  options: { target?: number; batchSize?: number; family?: ChainFamilyName } = {},
): Promise<FillResult> {
  const pool = addressPool(ctx, options.family);
  const state = await readPoolState(ctx.db, pool.family);
  const rate = takeRate(ctx, pool.family, state);
  const target = options.target ?? Math.max(ctx.config.poolMinFree, Math.ceil(rate * POOL_HEADROOM_SECONDS));
  const missing = target - state.free;
  if (missing <= 0) return { inserted: 0, free: state.free, more: false };
  const recovered = await completeStaleReservation(ctx, pool);
  if (recovered !== null) return { inserted: recovered, free: state.free + recovered, more: true };
  const batchSize =
    options.batchSize ?? Math.min(POOL_MAX_BATCH_SIZE, Math.max(POOL_BATCH_SIZE, Math.ceil(rate)));
  const count = Math.min(missing, batchSize);
  const now = ctx.clock.now().toISOString();
  const from = await ctx.db.transaction(async (tx) => {
    const start = await reserveIndexes(tx, pool.family, count);
    await queryRows(
      tx,
      sql`INSERT INTO address_pool_reservations (family, from_index, count, reserved_at)
          VALUES (${pool.family}, ${start}, ${count}, ${now}::timestamptz)`,
    );
    return start;
  });
  const derived = await derivePool(ctx, pool, from, count);
  const inserted = await ctx.db.transaction(async (tx) => {
    const mine = await queryRows(
      tx,
      sql`DELETE FROM address_pool_reservations WHERE family = ${pool.family} AND from_index = ${from}
          RETURNING from_index`,
    );
    // Completed by another run meanwhile (this one took longer than RESERVATION_STALE_MS).
    if (mine.length === 0) return 0;
    return insertAddresses(ctx, tx, pool.family, from, derived, "fail");
  });
  const free = state.free + inserted;
  if (inserted > 0)
    ctx.log.debug(
      { family: pool.family, inserted, free, from, rate: Math.round(rate) },
      "address pool refilled",
    );
  return { inserted, free, more: free < target };
}

/** One filler run for every enabled family's pool; `more` when any is still below its target. */
export async function fillAddressPools(ctx: Context): Promise<{ more: boolean }> {
  let more = false;
  for (const pool of addressPools(ctx)) {
    if ((await fillAddressPool(ctx, { family: pool.family })).more) more = true;
  }
  return { more };
}

/**
 * Registers (or, with null, removes) the wake-up of this process's filler loop, which otherwise
 * sleeps POOL_FILLER_INTERVAL_MS between runs while the pool holds its target.
 */
export function setPoolFillerWake(ctx: Context, wake: (() => void) | null): void {
  ctx.local.get(fillerState).wake = wake ?? undefined;
}

/**
 * Called by a creation that found the pool empty: the filler of this process (if it runs one)
 * runs now instead of at the end of its pause. At the start of a burst the pool holds only
 * POOL_MIN_FREE and the filler has measured no take rate yet; waiting out its pause left creation
 * on inline derivation, one block at a time, for up to 5 s (bench/order-supply.ts: the first 10 s
 * of a burst at 57 % of the rate after them). A process without a filler (role "api") keeps
 * deriving inline until the worker's filler catches up.
 */
export function wakePoolFiller(ctx: Context): void {
  ctx.local.get(fillerState).wake?.();
}
