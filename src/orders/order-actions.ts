/**
 * What an operator may do with an order now, and why not the rest: decided from its status, its
 * latest outcome, its sweep, its latest webhook delivery and the operator's role, for the console's
 * buttons (as payout-actions.ts does for payouts). The actions themselves check again
 * (retry-webhook, retry-sweep.ts, simulate-payment.ts, cancel-order.ts, accept-order.ts,
 * attach-stray-transfer.ts); this only explains in advance.
 */
import { roleAllows, type Permission } from "../admin/permissions.js";
import type { OperatorRole } from "../admin/operator-types.js";
import type { Context } from "../context.js";
import type { OrderStatus } from "../db/schema.js";
import type { OrderEventView } from "../payments/order-events.js";
import type { WebhookDeliveryView } from "../webhooks/list-order-webhooks.js";
import { OUTCOME_SETTING_EVENTS } from "./order-resolutions.js";
import { STATUSES_WITH_OUTCOME } from "./transitions.js";

export const ORDER_ACTIONS = [
  "retry_webhook",
  "retry_sweep",
  "simulate_payment",
  "cancel",
  "accept",
  "attach_transfer",
] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

export interface OrderActionState {
  action: OrderAction;
  allowed: boolean;
  /** why not, in words for the operator; null when allowed */
  reason: string | null;
}

export interface OrderActionInput {
  order: { status: OrderStatus; amountReceived: bigint; amountExpected: bigint };
  events: readonly OrderEventView[];
  /** The order's settlement status; null when nothing was swept or queued. */
  settlementStatus: string | null;
  webhooks: readonly WebhookDeliveryView[];
}

const PERMISSION: Record<OrderAction, Permission> = {
  retry_webhook: "orders.retry_webhook",
  retry_sweep: "orders.retry_sweep",
  simulate_payment: "orders.simulate",
  cancel: "orders.cancel",
  accept: "orders.resolve",
  attach_transfer: "orders.resolve",
};

/** The delivery the merchant would see last: the newest one that is not superseded. */
function latestDelivery(webhooks: readonly WebhookDeliveryView[]): WebhookDeliveryView | null {
  let latest: WebhookDeliveryView | null = null;
  for (const w of webhooks) {
    if (w.status !== "superseded" && (latest === null || w.created_at > latest.created_at)) latest = w;
  }
  return latest;
}

/** Whether the outcome in force is underpaid and not accepted yet (accept-order.ts decides). */
export function hasUnderpaidOutcome(input: Pick<OrderActionInput, "order" | "events">): boolean {
  const { order } = input;
  if (!STATUSES_WITH_OUTCOME.includes(order.status)) return false;
  if (order.amountReceived <= 0n || order.amountReceived >= order.amountExpected) return false;
  const latest = [...input.events].reverse().find((e) => OUTCOME_SETTING_EVENTS.includes(e.event_type));
  return latest?.event_type !== "manually_resolved";
}

function webhookReason(input: OrderActionInput): string | null {
  if (!STATUSES_WITH_OUTCOME.includes(input.order.status))
    return "No webhook yet: it is sent once the payment is confirmed.";
  if (latestDelivery(input.webhooks)?.status === "delivered")
    return "The merchant received the latest webhook.";
  return null;
}

function sweepReason(ctx: Context, input: OrderActionInput): string | null {
  if (!ctx.config.sweepEnabled) return "Sweeping is turned off on this deployment.";
  switch (input.settlementStatus) {
    case null:
      return "Nothing to sweep: no payment was credited to this order's address.";
    case "failed":
      return null;
    case "completed":
      return "Already swept to the cold wallet.";
    case "active":
      return "The sweep is running now.";
    default:
      return "The sweep is queued; a retry is possible only once it failed.";
  }
}

function stateReason(ctx: Context, action: OrderAction, input: OrderActionInput): string | null {
  const { status } = input.order;
  switch (action) {
    case "retry_webhook":
      return webhookReason(input);
    case "retry_sweep":
      return sweepReason(ctx, input);
    case "simulate_payment":
      if (!ctx.chains.primary.faucet) return "Only a devnet deployment can pay an order from its faucet.";
      return status === "pending"
        ? null
        : "Only an order awaiting payment can be paid from the devnet faucet.";
    case "cancel":
      return status === "pending" ? null : "Only an order awaiting payment can be cancelled.";
    case "accept":
      return hasUnderpaidOutcome(input) ? null : "Only an underpaid outcome can be accepted.";
    case "attach_transfer":
      // Any order may take a stray transfer: a late or second payment reached the wrong address.
      return null;
  }
}

export function orderActions(ctx: Context, input: OrderActionInput, role: OperatorRole): OrderActionState[] {
  return ORDER_ACTIONS.map((action) => {
    const reason =
      stateReason(ctx, action, input) ??
      (roleAllows(role, PERMISSION[action]) ? null : "Your role does not allow this.");
    return { action, allowed: reason === null, reason };
  });
}
