/**
 * Cancels a pending order (DESIGN.md 13): status `cancelled`, terminal, no webhook (like expiry),
 * event `order_cancelled` {actor, reason}. The address stays the order's through the quarantine,
 * so a transfer that still arrives is credited as a late payment (cancelled -> detected).
 *
 * A payment racing the cancel serialises on the order's row lock: either the scanner credits it
 * first (the order is detected and the cancel answers 409 INVALID_STATE), or the cancel commits
 * first and the payment is a late payment. Never both, and the payment is never lost.
 */
import type { Context } from "../context.js";
import { AppError } from "../errors.js";
import { lockOrder } from "./lock-order.js";
import { actorRecord, type ResolutionActor, type ResolutionOrigin } from "./resolution-actor.js";
import { transitionOrder, type OrderRow } from "./transitions.js";
import { recordResolutionAudit } from "./resolution-audit.js";

export interface CancelInput {
  orderId: string;
  /** Set for the merchant API: another merchant's order is NOT_FOUND. */
  merchantId?: string;
  actor: ResolutionActor;
  origin?: ResolutionOrigin;
  reason: string;
}

export async function cancelOrder(ctx: Context, input: CancelInput): Promise<OrderRow> {
  return ctx.db.transaction(async (tx) => {
    const order = await lockOrder(tx, input.orderId, input.merchantId);
    if (order.status !== "pending") {
      throw new AppError(
        "INVALID_STATE",
        `only a pending order can be cancelled; this one is ${order.status}`,
      );
    }
    const { order: cancelled, eventId } = await transitionOrder(ctx, tx, {
      order,
      to: "cancelled",
      event: "order_cancelled",
      payload: { actor: actorRecord(input.actor), reason: input.reason },
    });
    await recordResolutionAudit(ctx, tx, {
      actor: input.actor,
      origin: input.origin,
      action: "order.cancel",
      orderId: order.id,
      reason: input.reason,
      before: { status: order.status },
      after: { status: cancelled.status, order_event_id: eventId },
    });
    ctx.log.info({ orderId: order.id, actor: input.actor.kind }, "order cancelled");
    return cancelled;
  });
}
