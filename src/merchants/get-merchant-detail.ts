import { desc, eq, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { merchantIncidents, type OrderStatus, orderEvents, orders } from "../db/schema.js";
import { STATUSES_WITH_OUTCOME, type OrderRow } from "../orders/transitions.js";
import type { Currency } from "../chains/chain-types.js";
import { emptyBreakdown, getBalanceBreakdowns, type BalanceBreakdown } from "../ledger/balance-breakdown.js";
import type { MerchantBalance } from "../ledger/post-ledger.js";
import { getAccountBalances } from "./get-merchant-account.js";
import { findMerchant } from "./find-merchant.js";
import type { MerchantRow } from "./types.js";

/** SPEC.md 8: the merchant detail shows the 10 most recent orders and incidents. */
export const RECENT_LIMIT = 10;
export const INCIDENT_EVENT_TYPES = ["webhook_failed", "sweep_failed"] as const;
const ACTIVE_STATUSES: readonly OrderStatus[] = ["pending", "detected"];

export interface MerchantStats {
  orderCount: number;
  completedCount: number;
  callbackFailedCount: number;
  /** pending + detected */
  activeOrderCount: number;
  /** Micro-USDT received by orders that reached an outcome. */
  totalReceived: bigint;
  lastOrderAt: Date | null;
  incidentCount: number;
}

export interface MerchantIncident {
  id: string;
  createdAt: Date;
  eventType: string;
  payload: Record<string, unknown>;
  orderId: string;
  orderStatus: OrderStatus;
  externalId: string;
}

export interface MerchantDetail {
  merchant: MerchantRow;
  stats: MerchantStats;
  recentOrders: OrderRow[];
  recentIncidents: MerchantIncident[];
  /** The USDT balance (SPEC's `balance`). */
  balance: MerchantBalance;
  /** Per currency (DESIGN.md 16): every one the deployment enables, and any other it holds. */
  balances: Partial<Record<Currency, MerchantBalance>>;
  /** How the USDT balance is made, from the ledger (balance-breakdown.ts). */
  balanceBreakdown: BalanceBreakdown;
  /** How each currency's balance is made: the same currencies as `balances`. */
  balanceBreakdowns: Partial<Record<Currency, BalanceBreakdown>>;
}

interface TotalsRow extends Record<string, unknown> {
  order_count: string;
  completed_count: string;
  callback_failed_count: string;
  active_order_count: string;
  total_received: string;
  incident_count: string;
}

/**
 * One merchant with its aggregated stats. The counts come from the rollups (order_rollups_total:
 * one row per status; merchant_incidents for incidents), the recent orders and incidents from
 * indexes on (merchant_id, created_at), so nothing here grows with the merchant's history.
 */
export async function getMerchantDetail(ctx: Context, input: { id: string }): Promise<MerchantDetail> {
  const merchant = await findMerchant(ctx, input.id);
  const byMerchant = eq(orders.merchantId, merchant.id);
  const hasOutcome = sql.join(
    STATUSES_WITH_OUTCOME.map((status) => sql`${status}`),
    sql`, `,
  );
  const active = sql.join(
    ACTIVE_STATUSES.map((status) => sql`${status}`),
    sql`, `,
  );
  const [[totals], recentOrders, recentIncidents, { balance, balances }, breakdowns] = await Promise.all([
    queryRows<TotalsRow>(
      ctx.db,
      // numeric(38,0) summed in SQL and read as text, so no float ever holds the amount.
      sql`SELECT coalesce(sum(order_count), 0)::text AS order_count,
          coalesce(sum(order_count) FILTER (WHERE status = 'completed'), 0)::text AS completed_count,
          coalesce(sum(order_count) FILTER (WHERE status = 'callback_failed'), 0)::text
            AS callback_failed_count,
          coalesce(sum(order_count) FILTER (WHERE status IN (${active})), 0)::text AS active_order_count,
          coalesce(sum(amount_received) FILTER (WHERE status IN (${hasOutcome})), 0)::text AS total_received,
          (SELECT count(*) FROM merchant_incidents WHERE merchant_id = ${merchant.id}::uuid)::text
            AS incident_count
        FROM order_rollups_total WHERE merchant_id = ${merchant.id}::uuid`,
    ),
    ctx.db
      .select()
      .from(orders)
      .where(byMerchant)
      .orderBy(desc(orders.createdAt), desc(orders.id))
      .limit(RECENT_LIMIT),
    ctx.db
      .select({
        id: orderEvents.id,
        createdAt: orderEvents.createdAt,
        eventType: orderEvents.eventType,
        payload: orderEvents.payload,
        orderId: orders.id,
        orderStatus: orders.status,
        externalId: orders.externalId,
      })
      .from(merchantIncidents)
      .innerJoin(orderEvents, eq(orderEvents.id, merchantIncidents.eventId))
      .innerJoin(orders, eq(orders.id, orderEvents.orderId))
      .where(eq(merchantIncidents.merchantId, merchant.id))
      .orderBy(desc(merchantIncidents.createdAt), desc(merchantIncidents.eventId))
      .limit(RECENT_LIMIT),
    getAccountBalances(ctx, merchant.id),
    getBalanceBreakdowns(ctx.db, merchant.id),
  ]);
  const balanceBreakdowns: Partial<Record<Currency, BalanceBreakdown>> = {};
  for (const currency of Object.keys(balances) as Currency[]) {
    balanceBreakdowns[currency] = breakdowns[currency] ?? emptyBreakdown();
  }

  return {
    merchant,
    stats: {
      orderCount: Number(totals?.order_count ?? 0),
      completedCount: Number(totals?.completed_count ?? 0),
      callbackFailedCount: Number(totals?.callback_failed_count ?? 0),
      activeOrderCount: Number(totals?.active_order_count ?? 0),
      totalReceived: BigInt(totals?.total_received ?? "0"),
      lastOrderAt: recentOrders[0]?.createdAt ?? null,
      incidentCount: Number(totals?.incident_count ?? 0),
    },
    recentOrders,
    recentIncidents,
    balance,
    balances,
    balanceBreakdown: balanceBreakdowns.USDT ?? breakdowns.USDT ?? emptyBreakdown(),
    balanceBreakdowns,
  };
}
