import { asc, eq } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { orderEvents } from "../db/schema.js";

export interface OrderEventView {
  id: string;
  event_type: string;
  payload: Record<string, unknown>;
  created_at: string;
}

/** An order's events, oldest first. */
export async function listOrderEvents(db: Executor, orderId: string): Promise<OrderEventView[]> {
  const rows = await db
    .select()
    .from(orderEvents)
    .where(eq(orderEvents.orderId, orderId))
    .orderBy(asc(orderEvents.createdAt), asc(orderEvents.id));
  return rows.map((row) => ({
    id: row.id,
    event_type: row.eventType,
    payload: row.payload,
    created_at: row.createdAt.toISOString(),
  }));
}
