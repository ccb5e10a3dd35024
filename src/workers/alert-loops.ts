/**
 * Operator alerts in the worker role: an evaluator (fires and resolves, and sends the day's audit
 * head once; safe in every worker at once) and a sender (delivers the outbox with SKIP LOCKED and a lease).
 */
import type { Context } from "../context.js";
import { deliverDueAlerts } from "../alerts/deliver-alerts.js";
import { evaluateAlerts } from "../alerts/evaluate-alerts.js";
import { publishAuditHead } from "../alerts/publish-audit-head.js";
import { startLoop, type Loop } from "./loop.js";

export const ALERT_EVALUATE_MS = 15_000;
export const ALERT_SEND_MS = 2_000;

export function startAlertLoops(ctx: Context): Loop[] {
  const sender = startLoop({
    name: "alert-sender",
    log: ctx.log,
    intervalMs: ALERT_SEND_MS,
    task: async () => {
      const r = await deliverDueAlerts(ctx);
      return r.delivered + r.failed > 0;
    },
  });
  const evaluator = startLoop({
    name: "alert-evaluator",
    log: ctx.log,
    intervalMs: ALERT_EVALUATE_MS,
    task: async () => {
      const r = await evaluateAlerts(ctx);
      const headSent = await publishAuditHead(ctx);
      if (r.fired.length + r.resolved.length > 0 || headSent) sender.wake();
    },
  });
  return [evaluator, sender];
}
