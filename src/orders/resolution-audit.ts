/**
 * The audit row of a resolution (DESIGN.md 12), written in the resolution's own transaction.
 * Issue 22's appendAudit is the audit log; until it is on main this is the one place to wire it.
 */
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import type { ResolutionActor } from "./resolution-actor.js";

export interface ResolutionAudit {
  actor: ResolutionActor;
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
  _tx: Executor,
  entry: ResolutionAudit,
): Promise<void> {
  ctx.log.info(
    { action: entry.action, orderId: entry.orderId, strayId: entry.strayId, actor: entry.actor.label },
    "resolution recorded",
  );
}
