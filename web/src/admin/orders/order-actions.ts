/**
 * The order page's reading of its state: the actions the server allows (and why not), whether the
 * merchant was told of the outcome, and an outcome the status no longer shows.
 */
import type { OrderDetail } from "../../api-types.js";
import { toMicro } from "../../checkout/amounts.js";

export type OrderActionState = OrderDetail["actions"][number];

/** The server's word on one action (src/orders/order-actions.ts decides; the page only shows it). */
export function actionState(
  detail: Pick<OrderDetail, "actions">,
  action: OrderActionState["action"],
): OrderActionState {
  return (
    detail.actions.find((a) => a.action === action) ?? { action, allowed: false, reason: "Not available." }
  );
}

/** The delivery the merchant would see last: the newest one that is not superseded. */
export function latestDelivery(webhooks: OrderDetail["webhooks"]): OrderDetail["webhooks"][number] | null {
  const live = webhooks.filter((w) => w.status !== "superseded");
  return live.reduce<OrderDetail["webhooks"][number] | null>(
    (latest, w) => (latest === null || w.created_at > latest.created_at ? w : latest),
    null,
  );
}

/** The order needs the operator's attention because the merchant was not told of its outcome. */
export function failingWebhook(
  detail: Pick<OrderDetail, "order" | "webhooks">,
): OrderDetail["webhooks"][number] | null {
  const latest = latestDelivery(detail.webhooks);
  if (!latest || latest.status === "delivered") return null;
  if (latest.status === "failed" || latest.last_error !== null || (latest.last_status_code ?? 200) >= 300)
    return latest;
  return null;
}

/**
 * "underpaid" or "overpaid" when a final order (completed, webhook failed) got a different amount
 * than asked: its status no longer says so, the badge beside it does. Null otherwise.
 */
export function amountOutcome(
  order: Pick<OrderDetail["order"], "status" | "amount_expected" | "amount_received">,
): "underpaid" | "overpaid" | null {
  if (order.status !== "completed" && order.status !== "callback_failed") return null;
  const expected = toMicro(order.amount_expected);
  const received = toMicro(order.amount_received);
  if (expected === null || received === null || expected === received) return null;
  return received < expected ? "underpaid" : "overpaid";
}
