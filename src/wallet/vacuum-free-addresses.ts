/** The pool filler's vacuum of the list of free addresses (free_addresses, migration 0016). */
import type { Context } from "../context.js";
import { localSlot } from "../local-state.js";
import { readPoolState } from "./pool-state.js";

/** The `taken` counter (every pool's) at this process's last vacuum of the free list. */
const vacuumState = localSlot("free list vacuum", (): { vacuumedAt?: number } => ({}));

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
  const state = ctx.local.get(vacuumState);
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
