/** The admin order list (SPEC.md 4.5): every merchant's orders, newest first, with merchant_name. */
import type { ChainId, Currency } from "../chains/chain-types.js";
import type { AdminOrderSummary } from "../admin/api-shapes.js";
import { and, desc, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { merchants, orders, type OrderStatus } from "../db/schema.js";
import { formatAmount } from "../money.js";
import { orderListConditions, pagination, type Page } from "../payments/list-orders.js";
import { countOrders } from "./count-orders.js";
import { orderPageKeys } from "./order-page-keys.js";
import { displayAddress } from "../chains/address-display.js";

export interface AdminOrderFilter {
  page: number;
  limit: number;
  status?: OrderStatus | undefined;
  merchantId?: string | undefined;
  chain?: ChainId | undefined;
  currency?: Currency | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

export type { AdminOrderSummary };

/** The SPEC.md 2.2 shape, used by the order list and the merchant detail's recent orders. */
export function toAdminOrderSummary(
  order: typeof orders.$inferSelect,
  merchantName: string,
): AdminOrderSummary {
  return {
    id: order.id,
    external_id: order.externalId,
    merchant_id: order.merchantId,
    merchant_name: merchantName,
    address: displayAddress(order.chain, order.address),
    amount_expected: formatAmount(order.amountExpected),
    amount_received: formatAmount(order.amountReceived),
    chain: order.chain as ChainId,
    currency: order.currency as Currency,
    status: order.status,
    tx_hash: order.txHash,
    created_at: order.createdAt.toISOString(),
    expires_at: order.expiresAt.toISOString(),
  };
}

/**
 * The page query: newest first, the page's keys read through the index that matches the filter
 * (orderPageKeys; plan test: test/orders/list-plans.test.ts), then its rows.
 */
export function adminOrdersPageQuery(ctx: Context, filter: AdminOrderFilter) {
  const conditions = orderListConditions(filter);
  if (filter.merchantId !== undefined) conditions.push(eq(orders.merchantId, filter.merchantId));
  if (filter.chain !== undefined) conditions.push(eq(orders.chain, filter.chain));
  if (filter.currency !== undefined) conditions.push(eq(orders.currency, filter.currency));
  const page = orderPageKeys(ctx.db, and(...conditions), {
    limit: filter.limit,
    offset: (filter.page - 1) * filter.limit,
  });
  return ctx.db
    .select({ order: orders, merchantName: merchants.name })
    .from(page)
    .innerJoin(orders, eq(orders.id, page.id))
    .innerJoin(merchants, eq(merchants.id, orders.merchantId))
    .orderBy(desc(page.createdAt), desc(page.id));
}

export async function listAdminOrders(
  ctx: Context,
  filter: AdminOrderFilter,
): Promise<Page<AdminOrderSummary>> {
  const [rows, total] = await Promise.all([adminOrdersPageQuery(ctx, filter), countOrders(ctx.db, filter)]);
  return {
    data: rows.map(({ order, merchantName }) => toAdminOrderSummary(order, merchantName)),
    pagination: pagination(filter.page, filter.limit, total),
  };
}
