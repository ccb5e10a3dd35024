import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";

export interface AddressPoolCounts {
  total: number;
  free: number;
  /** total - free: bound to an order, including addresses still in quarantine. */
  allocated: number;
}

export async function getAddressPoolCounts(ctx: Context): Promise<AddressPoolCounts> {
  const result = await queryRows<{ total: string; free: string }>(
    ctx.db,
    sql`
    SELECT count(*)::text AS total, (count(*) FILTER (WHERE status = 'free'))::text AS free
    FROM addresses`,
  );
  const total = Number(result[0]?.total ?? 0);
  const free = Number(result[0]?.free ?? 0);
  return { total, free, allocated: total - free };
}
