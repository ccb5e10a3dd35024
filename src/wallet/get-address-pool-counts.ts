import { sql } from "drizzle-orm";
import type { AddressPoolCounts } from "../admin/api-shapes.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";

export type { AddressPoolCounts };

/**
 * The pool's size and its free part, without reading every address (the admin stats ask on every
 * load). Derivation indexes are handed out contiguously from 0 (fill-address-pool and the inline
 * derivation both take max + 1, concurrent fillers collide on the unique index and skip) and no
 * address is ever deleted, so the pool holds exactly max(derivation_index) + 1 addresses: one probe
 * of the unique index instead of a count over a table that grows with every order's quarantine.
 * The free ones are counted through their partial index, whose size is the pool's headroom.
 */
export async function getAddressPoolCounts(ctx: Context): Promise<AddressPoolCounts> {
  const result = await queryRows<{ total: string; free: string }>(
    ctx.db,
    sql`
    SELECT (SELECT coalesce(max(derivation_index), -1) + 1 FROM addresses)::text AS total,
           (SELECT count(*) FROM addresses WHERE status = 'free')::text AS free`,
  );
  const total = Number(result[0]?.total ?? 0);
  const free = Number(result[0]?.free ?? 0);
  return { total, free, allocated: total - free };
}
