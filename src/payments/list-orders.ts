import { and, eq, gte, lte, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { orders, type OrderStatus } from "../db/schema.js";
import { countOrders } from "../orders/count-orders.js";
import { selectOrders, toMerchantOrder, type MerchantOrder } from "./merchant-order.js";

export interface ListOrdersFilter {
  page: number;
  limit: number;
  status?: OrderStatus | undefined;
  externalId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
}

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

export function pagination(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, total_pages: Math.ceil(total / limit) };
}

/** Conditions shared by the merchant and admin order lists. */
export function orderListConditions(filter: Omit<ListOrdersFilter, "page" | "limit">): SQL[] {
  const conditions: SQL[] = [];
  if (filter.status !== undefined) conditions.push(eq(orders.status, filter.status));
  if (filter.externalId !== undefined) conditions.push(eq(orders.externalId, filter.externalId));
  if (filter.from !== undefined) conditions.push(gte(orders.createdAt, filter.from));
  if (filter.to !== undefined) conditions.push(lte(orders.createdAt, filter.to));
  return conditions;
}

/** The conditions of the merchant's own order list (shared with the plan test). */
export function merchantOrdersWhere(merchantId: string, filter: ListOrdersFilter): SQL | undefined {
  return and(eq(orders.merchantId, merchantId), ...orderListConditions(filter));
}

/** The merchant's own orders, newest first; the total comes from the rollups (countOrders). */
export async function listOrders(
  ctx: Context,
  merchantId: string,
  filter: ListOrdersFilter,
): Promise<Page<MerchantOrder>> {
  const where = merchantOrdersWhere(merchantId, filter);
  const [rows, total] = await Promise.all([
    selectOrders(ctx.db, where, { limit: filter.limit, offset: (filter.page - 1) * filter.limit }),
    countOrders(ctx.db, { ...filter, merchantId }),
  ]);
  return {
    data: rows.map((row) => toMerchantOrder(ctx.config, row.order, row.confirmations)),
    pagination: pagination(filter.page, filter.limit, total),
  };
}
