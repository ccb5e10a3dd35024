/**
 * Which of an order's actions its state allows, and why not when it does not: the page shows a
 * disabled button with the reason rather than an action the server would refuse.
 */
import type { OrderDetail } from "../../api-types.js";
import { toMicro } from "../../checkout/amounts.js";

export interface ActionState {
  enabled: boolean;
  /** Why the action is not available; null when it is. */
  why: string | null;
}

const OUTCOME = new Set(["confirmed", "underpaid", "overpaid", "completed", "callback_failed"]);

const allow: ActionState = { enabled: true, why: null };
const deny = (why: string): ActionState => ({ enabled: false, why });

/** The delivery the merchant would see last: the newest one that is not superseded. */
export function latestDelivery(webhooks: OrderDetail["webhooks"]): OrderDetail["webhooks"][number] | null {
  const live = webhooks.filter((w) => w.status !== "superseded");
  return live.reduce<OrderDetail["webhooks"][number] | null>(
    (latest, w) => (latest === null || w.created_at > latest.created_at ? w : latest),
    null,
  );
}

export function retryWebhookState(detail: Pick<OrderDetail, "order" | "webhooks">): ActionState {
  if (!OUTCOME.has(detail.order.status))
    return deny("No webhook yet: it is sent once the payment is confirmed.");
  const latest = latestDelivery(detail.webhooks);
  if (latest?.status === "delivered") return deny("The merchant received the latest webhook.");
  return allow;
}

export function retrySweepState(detail: Pick<OrderDetail, "settlement" | "meta">): ActionState {
  if (!detail.meta.sweep_enabled) return deny("Sweeping is turned off on this deployment.");
  const settlement = detail.settlement;
  if (settlement === null) return deny("Nothing to sweep: no payment was credited to this order's address.");
  switch (settlement.status) {
    case "failed":
      return allow;
    case "completed":
      return deny("Already swept to the cold wallet.");
    case "active":
      return deny("The sweep is running now.");
    default:
      return deny("The sweep is queued; a retry is possible only once it failed.");
  }
}

export function simulateState(detail: Pick<OrderDetail, "order">): ActionState {
  return detail.order.status === "pending"
    ? allow
    : deny("Only an order awaiting payment can be paid from the devnet faucet.");
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
