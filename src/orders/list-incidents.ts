/** The 10 most recent webhook_failed and sweep_failed events across all orders (SPEC.md 2.3). */
import { desc, eq, inArray } from "drizzle-orm";
import type { Incident } from "../admin/api-shapes.js";
import type { Context } from "../context.js";
import { merchants, orderEvents, orders } from "../db/schema.js";
import { INCIDENT_EVENT_TYPES } from "../merchants/get-merchant-detail.js";

export const INCIDENT_LIST_SIZE = 10;

export type { Incident };

export async function listIncidents(ctx: Context): Promise<Incident[]> {
  const rows = await ctx.db
    .select({
      event: orderEvents,
      orderStatus: orders.status,
      externalId: orders.externalId,
      merchantName: merchants.name,
    })
    .from(orderEvents)
    .innerJoin(orders, eq(orders.id, orderEvents.orderId))
    .innerJoin(merchants, eq(merchants.id, orders.merchantId))
    .where(inArray(orderEvents.eventType, [...INCIDENT_EVENT_TYPES]))
    .orderBy(desc(orderEvents.createdAt), desc(orderEvents.id))
    .limit(INCIDENT_LIST_SIZE);
  return rows.map(({ event, orderStatus, externalId, merchantName }) => ({
    id: event.id,
    created_at: event.createdAt.toISOString(),
    event_type: event.eventType,
    payload: event.payload,
    order_id: event.orderId,
    order_status: orderStatus,
    external_id: externalId,
    merchant_name: merchantName,
  }));
}
