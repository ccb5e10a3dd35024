import { count, desc, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { merchants, orders } from "../db/schema.js";
import type { MerchantRow } from "./types.js";

export interface MerchantListEntry {
  merchant: MerchantRow;
  orderCount: number;
}

/** Every merchant, newest first, with its number of orders. */
export async function listMerchants(ctx: Context): Promise<MerchantListEntry[]> {
  const rows = await ctx.db
    .select({ merchant: merchants, orderCount: count(orders.id) })
    .from(merchants)
    .leftJoin(orders, eq(orders.merchantId, merchants.id))
    .groupBy(merchants.id)
    .orderBy(desc(merchants.createdAt), desc(merchants.id));
  return rows.map((row) => ({ merchant: row.merchant, orderCount: Number(row.orderCount) }));
}
