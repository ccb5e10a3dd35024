import { desc, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { merchants } from "../db/schema.js";
import type { MerchantRow } from "./types.js";

export interface MerchantListEntry {
  merchant: MerchantRow;
  orderCount: number;
}

/**
 * Every merchant, newest first, with its number of orders, summed from order_rollups_total
 * (merchants x statuses rows, whatever the number of orders).
 */
export async function listMerchants(ctx: Context): Promise<MerchantListEntry[]> {
  const [rows, counts] = await Promise.all([
    ctx.db.select().from(merchants).orderBy(desc(merchants.createdAt), desc(merchants.id)),
    queryRows<{ merchant_id: string; n: string }>(
      ctx.db,
      sql`SELECT merchant_id::text AS merchant_id, sum(order_count)::text AS n
        FROM order_rollups_total GROUP BY merchant_id`,
    ),
  ]);
  const byMerchant = new Map(counts.map((row) => [row.merchant_id, Number(row.n)]));
  return rows.map((merchant) => ({ merchant, orderCount: byMerchant.get(merchant.id) ?? 0 }));
}
