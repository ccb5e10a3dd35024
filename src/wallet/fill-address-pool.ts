/**
 * Keeps the pool ahead of the rate at which orders take addresses, so the request path only claims
 * one. The filler reads the free count and the number of addresses ever taken from the pool's
 * counters (address_pool_counts, kept by a trigger on addresses: migration 0013), never by counting
 * addresses. From the taken counter it measures the take rate, and it keeps
 * max(POOL_MIN_FREE, rate x POOL_HEADROOM_SECONDS) addresses free, deriving batches of about one
 * second of takes (at least POOL_BATCH_SIZE, at most POOL_MAX_BATCH_SIZE) per run, on a worker thread
 * (the chain's derivation: src/chains/), so the requests the process serves meanwhile keep the event loop.
 *
 * Derivation indexes are reserved from the one row of address_pool_state, which every writer of
 * the pool's chain goes through (this filler and the inline derivation), so no two writers ever
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

/** The smallest batch: below it the round trips cost more than the derivation. */
export const POOL_BATCH_SIZE = 100;
/** The largest batch of one run (about 0.2-0.5 s of derivation on one core). */
export const POOL_MAX_BATCH_SIZE = 2_000;
/** The filler's pause between runs while the pool holds its target (a creation that finds it empty wakes it). */
export const POOL_FILLER_INTERVAL_MS = 5_000;
/** The pool holds at least this many seconds of takes at the measured rate. */
export const POOL_HEADROOM_SECONDS = 10;
export interface PoolState {
  free: number;
  /** Addresses ever taken from the pool (free -> allocated), monotonic. */
  taken: number;
  nextIndex: number;
}

export async function readPoolState(db: Executor): Promise<PoolState> {
  const result = await queryRows<{ free: string; taken: string; next_index: string }>(
    db,
    sql`
    SELECT (SELECT coalesce(sum(free), 0) FROM address_pool_counts)::text AS free,
           (SELECT coalesce(sum(taken), 0) FROM address_pool_counts)::text AS taken,
           (SELECT next_index FROM address_pool_state)::text AS next_index`,
  );
  const row = result[0];
  return {
    free: Number(row?.free ?? 0),
    taken: Number(row?.taken ?? 0),
    nextIndex: Number(row?.next_index ?? 0),
  };
}

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
    /** Whether the derivation backend was logged. */
    backendLogged: boolean;
    /** The last take-rate measurement. */
    sample?: RateSample;
    /** Wakes the filler loop this process runs, if it runs one. */
    wake?: () => void;
    /** The `taken` counter at this process's last vacuum of the free list. */
    vacuumedAt?: number;
  } => ({ backendLogged: false }),
);

/**
 * The addresses of `count` indexes from `from` on the order branch, off the event loop. The first
 * call of the process logs which implementation derives them (libsecp256k1, or @noble/curves and why).
 */
async function derivePool(ctx: Context, from: number, count: number): Promise<string[]> {
  const state = ctx.local.get(fillerState);
  if (!state.backendLogged) {
    state.backendLogged = true;
    const { backend, reason } = ctx.chains.primary.derivation.backend();
    if (reason === undefined)
      ctx.log.info({ backend }, "address pool: deriving with the native libsecp256k1");
    else
      ctx.log.warn(
        { backend, reason },
        "address pool: deriving with @noble/curves (pure JavaScript, slower)",
      );
  }
  return ctx.chains.primary.derivation.deriveAddresses(ctx.config.walletXpub, from, count);
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
  from: number,
  addresses: string[],
  conflicts: "skip" | "fail",
): Promise<number> {
  if (addresses.length === 0) return 0;
  const now = ctx.clock.now().toISOString();
  const result = await queryRows<{ id: string }>(
    db,
    sql`
    INSERT INTO addresses (derivation_index, address, status, created_at)
    SELECT ${from}::int + ord::int - 1, address, 'free', ${now}::timestamptz
    FROM unnest(${`{${addresses.join(",")}}`}::text[]) WITH ORDINALITY AS derived(address, ord)
    ${conflicts === "skip" ? sql`ON CONFLICT DO NOTHING` : sql``}
    RETURNING id::text AS id`,
  );
  return result.length;
}

/**
 * Reserves the next `count` derivation indexes, derives and inserts them as free, all inside `db`'s
 * transaction (the reservation is rolled back with it, so indexes stay contiguous). The row lock on
 * address_pool_state is held until that transaction ends. Returns the first index.
 */
export async function reserveAndInsertAddresses(ctx: Context, db: Executor, count: number): Promise<number> {
  const [row] = await queryRows<{ start: number }>(
    db,
    sql`UPDATE address_pool_state SET next_index = next_index + ${count}::int RETURNING next_index - ${count}::int AS start`,
  );
  const start = Number(row?.start ?? 0);
  await insertAddresses(ctx, db, start, await derivePool(ctx, start, count), "skip");
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
async function completeStaleReservation(ctx: Context): Promise<number | null> {
  const before = new Date(ctx.clock.now().getTime() - RESERVATION_STALE_MS).toISOString();
  return ctx.db.transaction(async (tx) => {
    const [stale] = await queryRows<{ from_index: number; count: number }>(
      tx,
      sql`DELETE FROM address_pool_reservations WHERE from_index = (
            SELECT from_index FROM address_pool_reservations WHERE reserved_at < ${before}::timestamptz
            ORDER BY from_index LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING from_index, count`,
    );
    if (!stale) return null;
    const from = Number(stale.from_index);
    const derived = await derivePool(ctx, from, Number(stale.count));
    const inserted = await insertAddresses(ctx, tx, from, derived, "skip");
    ctx.log.warn(
      { from, count: Number(stale.count), inserted },
      "address pool: completed a stale reservation",
    );
    return inserted;
  });
}

const RATE_WINDOW_MS = 1_000;

/** Addresses taken per second of ctx.clock, measured over windows of at least a second between runs. */
function takeRate(ctx: Context, pool: PoolState): number {
  const now = ctx.clock.now().getTime();
  const state = ctx.local.get(fillerState);
  const last = state.sample;
  if (!last || pool.taken < last.taken) {
    state.sample = { at: now, taken: pool.taken, rate: 0 };
    return 0;
  }
  if (now - last.at < RATE_WINDOW_MS) return last.rate;
  const rate = ((pool.taken - last.taken) * 1000) / (now - last.at);
  state.sample = { at: now, taken: pool.taken, rate };
  return rate;
}

/**
 * One run of the pool filler: derives at most one batch. `target` fixes the number of free
 * addresses to keep (instead of POOL_MIN_FREE or the rate's headroom) and `batchSize` the batch
 * (both for tests and benches); by default both follow the take rate.
 */
export async function fillAddressPool(
  ctx: Context,
  options: { target?: number; batchSize?: number } = {},
): Promise<FillResult> {
  const state = await readPoolState(ctx.db);
  const rate = takeRate(ctx, state);
  const target = options.target ?? Math.max(ctx.config.poolMinFree, Math.ceil(rate * POOL_HEADROOM_SECONDS));
  const missing = target - state.free;
  if (missing <= 0) return { inserted: 0, free: state.free, more: false };
  const recovered = await completeStaleReservation(ctx);
  if (recovered !== null) return { inserted: recovered, free: state.free + recovered, more: true };
  const batchSize =
    options.batchSize ?? Math.min(POOL_MAX_BATCH_SIZE, Math.max(POOL_BATCH_SIZE, Math.ceil(rate)));
  const count = Math.min(missing, batchSize);
  const now = ctx.clock.now().toISOString();
  const from = await ctx.db.transaction(async (tx) => {
    const [row] = await queryRows<{ start: number }>(
      tx,
      sql`UPDATE address_pool_state SET next_index = next_index + ${count}::int
          RETURNING next_index - ${count}::int AS start`,
    );
    const start = Number(row?.start ?? 0);
    await queryRows(
      tx,
      sql`INSERT INTO address_pool_reservations (from_index, count, reserved_at)
          VALUES (${start}, ${count}, ${now}::timestamptz)`,
    );
    return start;
  });
  const derived = await derivePool(ctx, from, count);
  const inserted = await ctx.db.transaction(async (tx) => {
    const mine = await queryRows(
      tx,
      sql`DELETE FROM address_pool_reservations WHERE from_index = ${from} RETURNING from_index`,
    );
    // Completed by another run meanwhile (this one took longer than RESERVATION_STALE_MS).
    if (mine.length === 0) return 0;
    return insertAddresses(ctx, tx, from, derived, "fail");
  });
  const free = state.free + inserted;
  if (inserted > 0) ctx.log.debug({ inserted, free, from, rate: Math.round(rate) }, "address pool refilled");
  return { inserted, free, more: free < target };
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

/** The filler vacuums the list of free addresses after this many takes since its last vacuum. */
export const POOL_VACUUM_TAKES = 10_000;

/**
 * Every claim leaves a dead entry at the front of the free list's index (free_addresses, migration
 * 0016). Claims start at their process's claim floor (create-order.ts), above those entries; only the
 * claim that starts from 0 again (about once a second, and when nothing is free above the floor)
 * steps over all of them until a vacuum removes them. Autovacuum is not to be relied on for that:
 * PGlite has none, a PostgreSQL may run with it off or visit the table only once a minute. So the
 * filler vacuums the list itself after POOL_VACUUM_TAKES takes. The list holds only the free
 * addresses, so a vacuum reads a few pages, whatever the number of addresses ever derived (before
 * 0016 it read every index of `addresses` whole). Outside any transaction, on a session without
 * the statement timeout; a plain VACUUM never blocks creations (it takes no lock they wait for).
 * Returns whether it vacuumed.
 */
export async function vacuumFreeAddressesIfDue(ctx: Context, takes = POOL_VACUUM_TAKES): Promise<boolean> {
  const { taken } = await readPoolState(ctx.db);
  const state = ctx.local.get(fillerState);
  const last = state.vacuumedAt;
  if (last !== undefined && taken - last < takes && taken >= last) return false;
  state.vacuumedAt = taken;
  // The first run of a process only notes where it starts, unless the list is already due.
  if (last === undefined && taken < takes) return false;
  const started = performance.now();
  await ctx.database.session((s) => s.query("VACUUM (INDEX_CLEANUP ON) free_addresses"));
  ctx.log.debug(
    { taken, ms: Math.round(performance.now() - started) },
    "address pool: vacuumed the free list",
  );
  return true;
}
