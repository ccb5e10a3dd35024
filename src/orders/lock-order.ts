/** Reads an order for a resolution, locked for the rest of the transaction; 404 like a read. */
import { eq } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { orders } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import type { OrderRow } from "./transitions.js";

export async function lockOrder(tx: Executor, orderId: string, merchantId?: string): Promise<OrderRow> {
  const notFound = new AppError("NOT_FOUND", "order not found");
  if (!isUuid(orderId)) throw notFound;
  const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
  // Another merchant's order is as unknown as a missing one.
  if (!order || (merchantId !== undefined && order.merchantId !== merchantId)) throw notFound;
  return order;
}
