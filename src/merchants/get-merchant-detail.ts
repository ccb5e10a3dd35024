import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { type OrderStatus, orderEvents, orders } from "../db/schema.js";
import { STATUSES_WITH_OUTCOME, type OrderRow } from "../orders/transitions.js";
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
}

/** One merchant with its aggregated stats, computed from its orders and their events. */
export async function getMerchantDetail(ctx: Context, input: { id: string }): Promise<MerchantDetail> {
  const merchant = await findMerchant(ctx, input.id);
  const byMerchant = eq(orders.merchantId, merchant.id);
  const isIncident = and(byMerchant, inArray(orderEvents.eventType, [...INCIDENT_EVENT_TYPES]));

  const [totals] = await ctx.db
    .select({
      orderCount: count(),
      completedCount: count(sql`CASE WHEN ${orders.status} = 'completed' THEN 1 END`),
      callbackFailedCount: count(sql`CASE WHEN ${orders.status} = 'callback_failed' THEN 1 END`),
      activeOrderCount: count(sql`CASE WHEN ${inArray(orders.status, [...ACTIVE_STATUSES])} THEN 1 END`),
      // numeric(38,0) summed in SQL and read as text, so no float ever holds the amount.
      totalReceived: sql<string>`COALESCE(SUM(${orders.amountReceived}) FILTER (WHERE ${inArray(
        orders.status,
        [...STATUSES_WITH_OUTCOME],
      )}), 0)::text`,
    })
    .from(orders)
    .where(byMerchant);
  const [incidents] = await ctx.db
    .select({ incidentCount: count() })
    .from(orderEvents)
    .innerJoin(orders, eq(orders.id, orderEvents.orderId))
    .where(isIncident);
  const recentOrders = await ctx.db
    .select()
    .from(orders)
    .where(byMerchant)
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(RECENT_LIMIT);
  const recentIncidents = await ctx.db
    .select({
      id: orderEvents.id,
      createdAt: orderEvents.createdAt,
      eventType: orderEvents.eventType,
      payload: orderEvents.payload,
      orderId: orders.id,
      orderStatus: orders.status,
      externalId: orders.externalId,
    })
    .from(orderEvents)
    .innerJoin(orders, eq(orders.id, orderEvents.orderId))
    .where(isIncident)
    .orderBy(desc(orderEvents.createdAt), desc(orderEvents.id))
    .limit(RECENT_LIMIT);

  return {
    merchant,
    stats: {
      orderCount: Number(totals?.orderCount ?? 0),
      completedCount: Number(totals?.completedCount ?? 0),
      callbackFailedCount: Number(totals?.callbackFailedCount ?? 0),
      activeOrderCount: Number(totals?.activeOrderCount ?? 0),
      totalReceived: BigInt(totals?.totalReceived ?? "0"),
      lastOrderAt: recentOrders[0]?.createdAt ?? null,
      incidentCount: Number(incidents?.incidentCount ?? 0),
    },
    recentOrders,
    recentIncidents,
  };
}
