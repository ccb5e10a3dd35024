/**
 * The vocabulary of refunds and payouts (DESIGN.md 14): one model, `payouts`, with kind refund or
 * payout, its states, and who acted.
 */
import type { payouts } from "../db/schema.js";
import { PAYOUT_STATUSES, type PayoutStatus } from "../db/schema.js";

export { PAYOUT_STATUSES, type PayoutStatus };
export type PayoutRow = typeof payouts.$inferSelect;
export type PayoutKind = PayoutRow["kind"];

/** Who did something (the same shape as the audit log's AuditActor). */
export type PayoutActor =
  | { kind: "operator"; id: string; label: string }
  | { kind: "merchant"; id: string; label: string }
  | { kind: "system"; label: string };

/** The states whose amount the ledger holds in `reserved`. */
export const LIVE_STATUSES: readonly PayoutStatus[] = [
  "awaiting_address",
  "pending_approval",
  "approved",
  "sending",
];
/** The states that release the reservation back to `available`. */
export const RELEASING_STATUSES: readonly PayoutStatus[] = ["rejected", "cancelled", "failed"];

/** Every allowed change of state. Anything else answers 409 INVALID_STATE. */
export const PAYOUT_TRANSITIONS: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  awaiting_address: ["pending_approval", "approved", "rejected", "cancelled"],
  pending_approval: ["approved", "rejected", "cancelled"],
  approved: ["sending", "cancelled", "failed"],
  sending: ["completed", "failed"],
  completed: [],
  failed: [],
  rejected: [],
  cancelled: [],
};

/** How long a refund's claim link stays valid. */
export const CLAIM_TTL_MS = 7 * 24 * 3600 * 1000;
