import { and, eq, ne, sql, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { depositAddresses, deposits, type DepositStatus } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { pagination, type Page } from "../payments/list-orders.js";
import { countDeposits, selectDeposits, type DepositView } from "./deposit-address-view.js";

export interface ListDepositsFilter {
  page: number;
  limit: number;
  depositAddressId?: string | undefined;
  customerRef?: string | undefined;
  status?: DepositStatus | undefined;
  /** The merchant API's scope; the admin API may pass one as a filter. */
  merchantId?: string | undefined;
}

/** Deposits, newest first, paginated like the order lists. */
export async function listDeposits(
  ctx: Context,
  filter: ListDepositsFilter,
): Promise<Page<DepositView & { merchant_id: string }>> {
  const conditions: SQL[] = [];
  if (filter.merchantId !== undefined) conditions.push(eq(deposits.merchantId, filter.merchantId));
  if (filter.depositAddressId !== undefined) {
    // A malformed id matches nothing, like an unknown one.
    if (!isUuid(filter.depositAddressId))
      return { data: [], pagination: pagination(filter.page, filter.limit, 0) };
    conditions.push(eq(deposits.depositAddressId, filter.depositAddressId));
  }
  if (filter.customerRef !== undefined) conditions.push(eq(depositAddresses.customerRef, filter.customerRef));
  if (filter.status !== undefined) conditions.push(eq(deposits.status, filter.status));
  const where = and(...conditions);
  const [data, total] = await Promise.all([
    selectDeposits(ctx.db, ctx, where, {
      limit: filter.limit,
      offset: (filter.page - 1) * filter.limit,
    }),
    countDeposits(ctx.db, where),
  ]);
  return { data, pagination: pagination(filter.page, filter.limit, total) };
}

/** One deposit; `merchantId` scopes the merchant API (another merchant's deposit is NOT_FOUND). */
export async function getDeposit(
  ctx: Context,
  merchantId: string | undefined,
  id: string,
): Promise<DepositView & { merchant_id: string }> {
  if (!isUuid(id)) throw new AppError("NOT_FOUND", "deposit not found");
  const scope: SQL[] = [eq(deposits.id, id)];
  if (merchantId !== undefined) scope.push(eq(deposits.merchantId, merchantId));
  const [found] = await selectDeposits(ctx.db, ctx, and(...scope));
  if (!found) throw new AppError("NOT_FOUND", "deposit not found");
  return found;
}

/**
 * The incidents list's deposits to disabled addresses (DESIGN.md 15): the `limit` most recent that
 * a fork has not dropped, newest first. Found through their incident events
 * (deposit_events_incident_idx), not by scanning the deposits.
 */
export async function listDisabledDepositIncidents(
  ctx: Context,
  limit = 10,
): Promise<(DepositView & { merchant_id: string })[]> {
  return selectDeposits(
    ctx.db,
    ctx,
    and(
      sql`${deposits.id} IN (SELECT e.deposit_id FROM deposit_events e
            WHERE e.event_type = 'deposit_to_disabled_address'
            ORDER BY e.created_at DESC LIMIT ${limit * 5})`,
      ne(deposits.status, "reverted"),
    ),
    { limit, offset: 0 },
  );
}
