/**
 * Accept what arrived (DESIGN.md 13): an order whose outcome is underpaid (status underpaid, or
 * completed / callback_failed after an underpaid outcome) gets the outcome `confirmed` at the amount
 * received, with event `manually_resolved` {action, actor, reason} and a new payment.confirmed
 * webhook (new idempotency key: the event's time) whose payload carries "resolution": "manual".
 * Accepting again, or any order whose outcome is not underpaid, is 409 INVALID_STATE.
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { orderEvents } from "../db/schema.js";
import { AppError } from "../errors.js";
import { formatAmount } from "../money.js";
import { enqueueOutcomeWebhook } from "../webhooks/enqueue-webhook.js";
import { lockOrder } from "./lock-order.js";
import { OUTCOME_SETTING_EVENTS } from "./order-resolutions.js";
import { actorRecord, type ResolutionActor, type ResolutionOrigin } from "./resolution-actor.js";
import { recordResolutionAudit } from "./resolution-audit.js";
import { STATUSES_WITH_OUTCOME, transitionOrder, type OrderRow } from "./transitions.js";

export interface AcceptInput {
  orderId: string;
  actor: ResolutionActor;
  origin?: ResolutionOrigin;
  reason: string;
}

/** The event that set the outcome in force (OUTCOME_SETTING_EVENTS), if any. */
export async function latestOutcomeEvent(tx: Executor, orderId: string): Promise<string | undefined> {
  const [latest] = await tx
    .select({ eventType: orderEvents.eventType })
    .from(orderEvents)
    .where(
      and(
        eq(orderEvents.orderId, orderId),
        inArray(orderEvents.eventType, OUTCOME_SETTING_EVENTS as string[]),
      ),
    )
    .orderBy(desc(orderEvents.createdAt), desc(orderEvents.id))
    .limit(1);
  return latest?.eventType;
}

/** Whether the order's outcome in force is underpaid (and was not accepted already). */
export async function hasUnderpaidOutcome(tx: Executor, order: OrderRow): Promise<boolean> {
  if (!STATUSES_WITH_OUTCOME.includes(order.status)) return false;
  if (order.amountReceived <= 0n || order.amountReceived >= order.amountExpected) return false;
  return (await latestOutcomeEvent(tx, order.id)) !== "manually_resolved";
}

export async function acceptOrder(ctx: Context, input: AcceptInput): Promise<OrderRow> {
  return ctx.db.transaction(async (tx) => {
    const order = await lockOrder(tx, input.orderId);
    if (!(await hasUnderpaidOutcome(tx, order))) {
      throw new AppError(
        "INVALID_STATE",
        `only an underpaid outcome can be accepted; this order is ${order.status} at ${formatAmount(order.amountReceived)} of ${formatAmount(order.amountExpected)}`,
      );
    }
    const transition = await transitionOrder(ctx, tx, {
      order,
      to: "confirmed",
      event: "manually_resolved",
      payload: {
        action: "accept",
        actor: actorRecord(input.actor),
        reason: input.reason,
        amount_received: formatAmount(order.amountReceived),
        amount_expected: formatAmount(order.amountExpected),
      },
    });
    await enqueueOutcomeWebhook(ctx, tx, {
      order: transition.order,
      event: "payment.confirmed",
      orderEventId: transition.eventId,
      eventCreatedAt: transition.eventCreatedAt,
      resolution: "manual",
    });
    await recordResolutionAudit(ctx, tx, {
      actor: input.actor,
      origin: input.origin,
      action: "order.resolve",
      orderId: order.id,
      reason: input.reason,
      before: { status: order.status },
      after: { status: transition.order.status, action: "accept", order_event_id: transition.eventId },
    });
    ctx.log.info({ orderId: order.id, actor: input.actor.kind }, "underpaid order accepted");
    return transition.order;
  });
}
