/** Refunds and payouts as the admin API returns them (DESIGN.md 14; src/http/schemas/payouts.ts). */
export type PayoutStatus =
  | "awaiting_address"
  | "pending_approval"
  | "approved"
  | "sending"
  | "completed"
  | "failed"
  | "rejected"
  | "cancelled";

/** GET /api/v1/admin/payouts/float (src/payouts/read-float.ts). */
export interface PayoutFloat {
  address: string | null;
  usdt_balance: string | null;
  trx_balance: string | null;
  balance_error: string | null;
  approved: { count: number; amount: string };
  in_flight: { count: number; amount: string };
  pending_approval: { count: number; amount: string };
  shortfall: string;
  is_low: boolean;
  waiting_for_float: number;
}

export interface Payout {
  id: string;
  kind: "refund" | "payout";
  status: PayoutStatus;
  external_id: string | null;
  order_id: string | null;
  /** a refund of a stray transfer (its merchant is the house account) */
  stray_transfer_id: string | null;
  merchant_id: string;
  amount: string;
  currency: "USDT";
  network: string;
  address: string | null;
  reason: string | null;
  callback_url: string | null;
  metadata: Record<string, unknown> | null;
  tx_hash: string | null;
  tx_explorer_url: string | null;
  trx_burnt: string | null;
  auto_approved: boolean;
  created_by: string;
  decided_by: string | null;
  created_at: string;
  approved_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
  last_error: string | null;
}

export type CreatedRefund = Payout & { claim_url: string | null };

export interface PayoutEvent {
  id: string;
  event_type: string;
  from_status: string | null;
  to_status: string | null;
  actor: { kind?: string; label?: string } | null;
  payload: Record<string, unknown>;
  created_at: string;
}

export interface PayoutTransaction {
  tx_hash: string;
  attempt: number;
  state: string;
  mode: string;
  result: string | null;
  fee_trx: string | null;
  energy_used: number | null;
  created_at: string;
  landed_at: string | null;
}

export interface PayoutDetail {
  payout: Payout;
  events: PayoutEvent[];
  transactions: PayoutTransaction[];
}

export type Decision = "approve" | "reject" | "cancel";

/** Which decisions a payout in `status` still allows (the server's FROM table, decide-payout.ts). */
export const DECIDABLE: Record<Decision, readonly PayoutStatus[]> = {
  approve: ["pending_approval"],
  reject: ["awaiting_address", "pending_approval"],
  cancel: ["awaiting_address", "pending_approval", "approved"],
};

export const DECISION_PERMISSION: Record<Decision, string> = {
  approve: "payouts.approve",
  reject: "payouts.approve",
  cancel: "payouts.cancel",
};

/** The server's refusal codes of a decision, in the operator's words. */
export function decisionErrorText(code: string, message: string): string {
  const text: Record<string, string> = {
    TOTP_INVALID: "That code is wrong or was already used: wait for the next one.",
    FOUR_EYES_REQUIRED: "You created this one: another operator must approve it (four-eyes rule).",
    ADMIN_FORBIDDEN: "Your role may not do this.",
    INVALID_STATE: "It changed meanwhile and no longer allows this; reload.",
    NOT_FOUND: "It no longer exists.",
  };
  return `${text[code] ?? message} (${code})`;
}
