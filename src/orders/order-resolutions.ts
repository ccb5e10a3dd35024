/**
 * An order's resolutions (DESIGN.md 13), read from its events: what was done by hand, by whom and
 * why. Shown in the admin order detail and the merchant's read beside the SPEC fields.
 */
import type { OrderEventView } from "../payments/order-events.js";

/** Events that set an order's outcome; the latest one is the outcome in force. */
export const OUTCOME_SETTING_EVENTS: readonly string[] = [
  "payment_confirmed",
  "payment_underpaid",
  "payment_overpaid",
  "additional_payment",
  "manually_resolved",
];

export const RESOLUTION_ACTIONS = ["cancel", "accept", "attach"] as const;
export type ResolutionAction = (typeof RESOLUTION_ACTIONS)[number];

export interface ResolutionView {
  event_id: string;
  action: ResolutionAction;
  actor: { kind: string; id?: string; label: string } | null;
  reason: string | null;
  /** attach: the transfer credited */
  tx_hash: string | null;
  amount: string | null;
  created_at: string;
}

const ACTION_OF: Record<string, ResolutionAction> = {
  order_cancelled: "cancel",
  manually_resolved: "accept",
  transfer_attached: "attach",
};

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

export function orderResolutions(events: readonly OrderEventView[]): ResolutionView[] {
  const out: ResolutionView[] = [];
  for (const e of events) {
    const action = ACTION_OF[e.event_type];
    if (!action) continue;
    const actor = e.payload.actor;
    out.push({
      event_id: e.id,
      action,
      actor:
        actor && typeof actor === "object" && typeof (actor as { label?: unknown }).label === "string"
          ? (actor as ResolutionView["actor"])
          : null,
      reason: str(e.payload.reason),
      tx_hash: str(e.payload.tx_hash),
      amount: str(e.payload.amount),
      created_at: e.created_at,
    });
  }
  return out;
}
