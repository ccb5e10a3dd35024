import { sql } from "drizzle-orm";
import type { AddressPoolCounts } from "../admin/api-shapes.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";

export type { AddressPoolCounts };

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
