import { sql } from "drizzle-orm";
import type { AddressPoolCounts } from "../admin/api-shapes.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";

export type { AddressPoolCounts };

/**
 * The pool's size and its free part, without reading any address (the admin stats ask on every
 * load): the counters that a trigger on addresses keeps in the same transaction as every change
 * (address_pool_counts, migration 0013; `stablegate check-rollups` recounts them).
 */
export async function getAddressPoolCounts(ctx: Context): Promise<AddressPoolCounts> {
  const result = await queryRows<{ total: string; free: string }>(
    ctx.db,
    sql`SELECT coalesce(sum(total), 0)::text AS total, coalesce(sum(free), 0)::text AS free FROM address_pool_counts`,
  );
  const total = Number(result[0]?.total ?? 0);
  const free = Number(result[0]?.free ?? 0);
  return { total, free, allocated: total - free };
}
