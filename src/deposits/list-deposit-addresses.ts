import { and, eq, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { depositAddresses, type DepositAddressStatus } from "../db/schema.js";
import { pagination, type Page } from "../payments/list-orders.js";
import {
  countDepositAddresses,
  selectDepositAddresses,
  type DepositAddressView,
} from "./deposit-address-view.js";

export interface ListDepositAddressesFilter {
  page: number;
  limit: number;
  customerRef?: string | undefined;
  status?: DepositAddressStatus | undefined;
  /** Admin only. */
  merchantId?: string | undefined;
}

/** Static addresses, newest first, paginated like the order lists. */
export async function listDepositAddresses(
  ctx: Context,
  filter: ListDepositAddressesFilter,
): Promise<Page<DepositAddressView & { merchant_id: string }>> {
  const conditions: SQL[] = [];
  if (filter.merchantId !== undefined) conditions.push(eq(depositAddresses.merchantId, filter.merchantId));
  if (filter.customerRef !== undefined) conditions.push(eq(depositAddresses.customerRef, filter.customerRef));
  if (filter.status !== undefined) conditions.push(eq(depositAddresses.status, filter.status));
  const where = and(...conditions);
  const [data, total] = await Promise.all([
    selectDepositAddresses(ctx.db, ctx, where, {
      limit: filter.limit,
      offset: (filter.page - 1) * filter.limit,
    }),
    countDepositAddresses(ctx.db, where),
  ]);
  return { data, pagination: pagination(filter.page, filter.limit, total) };
}
