/**
 * The audit row of a resolution (DESIGN.md 12), appended in the resolution's own transaction (as
 * its last statement: appendAudit holds the chain head until commit).
 */
import { appendAudit } from "../audit/append-audit.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import type { ResolutionActor, ResolutionOrigin } from "./resolution-actor.js";

export interface ResolutionAudit {
  actor: ResolutionActor;
  origin?: ResolutionOrigin | undefined;
  /** order.cancel, order.resolve, order.attach_transfer, stray.dismiss */
  action: string;
  orderId?: string;
  strayId?: string;
  reason: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}

export async function recordResolutionAudit(
  ctx: Context,
  tx: Executor,
  entry: ResolutionAudit,
): Promise<void> {
  await appendAudit(tx, {
    actor: entry.actor,
    action: entry.action,
    targetType: entry.orderId !== undefined ? "order" : "stray_transfer",
    targetId: entry.orderId ?? entry.strayId,
    before: entry.before,
    after: {
      ...entry.after,
      ...(entry.orderId && entry.strayId ? { stray_transfer_id: entry.strayId } : {}),
    },
    reason: entry.reason,
    ip: entry.origin?.ip,
    userAgent: entry.origin?.userAgent,
    at: ctx.clock.now(),
  });
}
