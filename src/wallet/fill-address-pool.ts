/**
 * Keeps at least config.poolMinFree derived addresses free, so the request path only claims one.
 * Safe in any number of workers: each inserts the next derivation indexes with ON CONFLICT DO
 * NOTHING, so two fillers racing insert every index once and the loser's rows simply vanish.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";
import { deriveAddresses } from "@stablegate/tron/hd";

/** Deriving is CPU work on the event loop; small batches keep the API responsive in role "all". */
export const POOL_BATCH_SIZE = 100;

interface PoolState {
  free: number;
  nextIndex: number;
}

async function readPoolState(db: Executor): Promise<PoolState> {
  const result = await queryRows<{ free: string; next_index: string }>(
    db,
    sql`
    SELECT
      (SELECT count(*) FROM addresses WHERE status = 'free')::text AS free,
      (SELECT coalesce(max(derivation_index), -1) + 1 FROM addresses)::text AS next_index`,
  );
  const row = result[0];
  return { free: Number(row?.free ?? 0), nextIndex: Number(row?.next_index ?? 0) };
}

/**
 * Inserts the addresses of derivation indexes [from, from + count) as free. Returns how many rows
 * this call inserted (indexes another worker inserted first are skipped).
 */
export async function insertDerivedAddresses(
  ctx: Context,
  db: Executor,
  from: number,
  count: number,
): Promise<number> {
  if (count <= 0) return 0;
  const derived = deriveAddresses(ctx.config.walletXpub, from, count);
  const now = ctx.clock.now().toISOString();
  const result = await queryRows<{ id: string }>(
    db,
    sql`
    INSERT INTO addresses (derivation_index, address, status, created_at)
    SELECT ${from}::int + ord::int - 1, address, 'free', ${now}::timestamptz
    FROM unnest(${`{${derived.join(",")}}`}::text[]) WITH ORDINALITY AS derived(address, ord)
    ON CONFLICT (derivation_index) DO NOTHING
    RETURNING id::text AS id`,
  );
  return result.length;
}

export interface FillResult {
  inserted: number;
  free: number;
  /** True when the pool is still below its target after this batch. */
  more: boolean;
}

/** One batch of the pool filler: derives at most POOL_BATCH_SIZE addresses. */
export async function fillAddressPool(
  ctx: Context,
  options: { target?: number; batchSize?: number } = {},
): Promise<FillResult> {
  const target = options.target ?? ctx.config.poolMinFree;
  const batchSize = options.batchSize ?? POOL_BATCH_SIZE;
  const state = await readPoolState(ctx.db);
  const missing = target - state.free;
  if (missing <= 0) return { inserted: 0, free: state.free, more: false };
  const count = Math.min(missing, batchSize);
  const inserted = await insertDerivedAddresses(ctx, ctx.db, state.nextIndex, count);
  const free = state.free + inserted;
  if (inserted > 0) ctx.log.debug({ inserted, free, from: state.nextIndex }, "address pool refilled");
  // A lost race (inserted < count) is not progress lost: the next run reads the new max and goes on.
  return { inserted, free, more: free < target };
}
