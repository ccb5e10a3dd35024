import { sql } from "drizzle-orm";
import type { AddressPoolCounts, FamilyPoolCounts } from "../admin/api-shapes.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { addressPools } from "./address-pools.js";

export type { AddressPoolCounts, FamilyPoolCounts };

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

/**
 * The same counters per chain family (tron, evm): every enabled family's pool, zeros when it has no
 * address yet, the primary chain's family first, then any other family that still has addresses.
 */
export async function getFamilyPoolCounts(ctx: Context): Promise<FamilyPoolCounts[]> {
  const rows = await queryRows<{ family: string; total: string; free: string }>(
    ctx.db,
    sql`SELECT family, coalesce(sum(total), 0)::text AS total, coalesce(sum(free), 0)::text AS free
        FROM address_pool_counts GROUP BY family`,
  );
  const byFamily = new Map(rows.map((row) => [row.family, row]));
  const families = [
    ...new Set([...addressPools(ctx).map((pool) => pool.family as string), ...[...byFamily.keys()].sort()]),
  ];
  return families.map((family) => {
    const row = byFamily.get(family);
    const total = Number(row?.total ?? 0);
    const free = Number(row?.free ?? 0);
    return { family, total, free, allocated: total - free };
  });
}
