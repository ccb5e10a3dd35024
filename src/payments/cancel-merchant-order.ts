/**
 * POST /api/v1/payments/:id/cancel (DESIGN.md 13): a merchant cancels one of its own pending orders
 * (another merchant's is NOT_FOUND) and gets the order as the cancel left it.
 */
import type { Context } from "../context.js";
import { cancelOrder, type CancelInput } from "../orders/cancel-order.js";
import { getOrder, type MerchantOrderDetail } from "./get-order.js";

export async function cancelMerchantOrder(
  ctx: Context,
  input: CancelInput & { merchantId: string },
): Promise<MerchantOrderDetail> {
  const order = await cancelOrder(ctx, input);
  return getOrder(ctx, input.merchantId, order.id);
}
