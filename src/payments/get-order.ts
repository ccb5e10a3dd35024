import { and, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { orders } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { selectOrders, toMerchantOrder, type MerchantOrder } from "./merchant-order.js";
import { listOrderEvents, type OrderEventView } from "./order-events.js";
import { orderResolutions, type ResolutionView } from "../orders/order-resolutions.js";

export interface MerchantOrderDetail extends MerchantOrder {
  events: OrderEventView[];
  /** Cancel, accept, attach: who and why (DESIGN.md 13); beside the SPEC fields. */
  resolutions: ResolutionView[];
}

/** One of the merchant's own orders with its events; another merchant's order is NOT_FOUND. */
export async function getOrder(
  ctx: Context,
  merchantId: string,
  orderId: string,
): Promise<MerchantOrderDetail> {
  const [found] = isUuid(orderId)
    ? await selectOrders(ctx.db, and(eq(orders.id, orderId), eq(orders.merchantId, merchantId)))
    : [];
  if (!found) throw new AppError("NOT_FOUND", "order not found");
  const events = await listOrderEvents(ctx.db, orderId);
  return {
    ...toMerchantOrder(ctx.config, found.order, found.confirmations),
    events,
    resolutions: orderResolutions(events),
  };
}
