/**
 * The fallback when the pool is empty: derive the next address on the request path. Index =
 * max + 1. Concurrent inline derivations queue on a transaction-level advisory lock (held until
 * the caller's transaction ends), so a burst of requests on an empty pool does not race for the
 * same index; a conflict with the pool filler just reads max again.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";
import { insertDerivedAddresses } from "./fill-address-pool.js";

const MAX_ATTEMPTS = 20;
/** Advisory lock key of inline derivation (see src/db/locks.ts for the other keys). */
export const INLINE_DERIVATION_LOCK = 740_100_101;

/** Inserts one newly derived free address (visible to `db`'s transaction) and returns its index. */
export async function deriveAddressInline(ctx: Context, db: Executor): Promise<number> {
  await queryRows(db, sql`SELECT pg_advisory_xact_lock(${INLINE_DERIVATION_LOCK})`);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const result = await queryRows<{ next_index: string }>(
      db,
      sql`SELECT (coalesce(max(derivation_index), -1) + 1)::text AS next_index FROM addresses`,
    );
    const index = Number(result[0]?.next_index ?? 0);
    if ((await insertDerivedAddresses(ctx, db, index, 1)) === 1) return index;
  }
  throw new Error("could not derive a deposit address: derivation index kept conflicting");
}
