/**
 * The console's words for the API's names: field labels, status and event names, roles and actors.
 * Every page reads these, so a code such as `pending_approval` never reaches an operator's eyes.
 * A name without an entry is turned into a sentence ("amount_expected" -> "Amount expected").
 */

/** "amount_expected" -> "Amount expected"; "not_queued" -> "Not queued". */
export function humanize(code: string): string {
  const words = code.replace(/[_.]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const FIELDS: Record<string, string> = {
  id: "ID",
  external_id: "Merchant's reference",
  merchant_id: "Merchant ID",
  merchant_name: "Merchant",
  amount_expected: "Amount asked",
  amount_received: "Amount received",
  tx_hash: "Transaction",
  from_address: "Paid from",
  to_address: "Paid to",
  address: "Address",
  callback_url: "Webhook URL",
  checkout_url: "Checkout page",
  created_at: "Created",
  updated_at: "Last change",
  expires_at: "Expires",
  detected_at: "Detected",
  confirmed_at: "Confirmed",
  completed_at: "Completed",
  approved_at: "Approved",
  failed_at: "Failed",
  block_number: "Block",
  block_timestamp: "Block time",
  trx_burnt: "Network fee (TRX burnt)",
  gas_cost: "Network fee (gas)",
  gas_cost_wei: "Network fee in wei",
  auto_approved: "Approved automatically",
  created_by: "Created by",
  decided_by: "Decided by",
  last_error: "Last error",
  customer_ref: "Customer reference",
  usdt_contract: "USDT contract",
  node_api_url: "Node",
  chain_network: "Network",
  chain_explorer_base_url: "Explorer",
  tx_explorer_base_url: "Transaction links",
  address_explorer_base_url: "Address links",
  sweep_enabled: "Sweeping",
  sweep_mode: "Sweep mode",
  hot_wallet_alert_trx: "Hot wallet alert below (TRX)",
  confirmations_required: "Confirmations required",
  sweep_tx_hash: "Sweep transaction",
  fee_tx_hash: "Fee transaction",
  trx_spent: "TRX spent",
  order_id: "Order",
  kind: "Kind",
  is_active: "Active",
  totp_enabled: "Two-factor sign-in",
  totp: "Two-factor code used",
  totp_pending: "Two-factor setup started",
  is_builtin: "Built-in account",
  invitation_pending: "Invitation pending",
  reason: "Reason",
  status: "Status",
  amount: "Amount",
  currency: "Currency",
  network: "Network",
  confirmations: "Confirmations",
  attempts: "Attempts",
};

export function fieldLabel(name: string): string {
  return FIELDS[name] ?? humanize(name);
}

export type Tone = "ok" | "bad" | "warn" | "info" | "neutral";

const STATUSES: Record<string, { label: string; tone: Tone }> = {
  // Orders
  pending: { label: "Awaiting payment", tone: "neutral" },
  detected: { label: "Confirming", tone: "info" },
  confirmed: { label: "Paid", tone: "ok" },
  underpaid: { label: "Underpaid", tone: "warn" },
  overpaid: { label: "Overpaid", tone: "warn" },
  completed: { label: "Completed", tone: "ok" },
  expired: { label: "Expired", tone: "neutral" },
  callback_failed: { label: "Webhook failed", tone: "bad" },
  cancelled: { label: "Cancelled", tone: "neutral" },
  // Refunds and payouts
  awaiting_address: { label: "Awaiting payer's address", tone: "info" },
  pending_approval: { label: "Awaiting approval", tone: "warn" },
  approved: { label: "Approved", tone: "info" },
  sending: { label: "Sending", tone: "info" },
  failed: { label: "Failed", tone: "bad" },
  rejected: { label: "Rejected", tone: "bad" },
  // Webhook deliveries
  delivered: { label: "Delivered", tone: "ok" },
  retrying: { label: "Retrying", tone: "bad" },
  queued: { label: "Queued", tone: "neutral" },
  // Sweeps and strays
  waiting: { label: "Waiting", tone: "neutral" },
  not_queued: { label: "Not queued", tone: "neutral" },
  swept: { label: "Swept", tone: "ok" },
  unresolved: { label: "Unresolved", tone: "warn" },
  refunded: { label: "Refunded", tone: "ok" },
  attached: { label: "Attached to an order", tone: "ok" },
  dismissed: { label: "Dismissed", tone: "neutral" },
  superseded: { label: "Superseded", tone: "neutral" },
  below_minimum: { label: "Below the sweep minimum", tone: "neutral" },
  active: { label: "Active", tone: "ok" },
  disabled: { label: "Disabled", tone: "neutral" },
  suspended: { label: "Suspended", tone: "bad" },
};

export function statusLabel(code: string): string {
  return STATUSES[code]?.label ?? humanize(code);
}

export function statusTone(code: string): Tone {
  return STATUSES[code]?.tone ?? "neutral";
}

const EVENTS: Record<string, string> = {
  order_created: "Order created",
  payment_detected: "Payment detected",
  late_payment: "Late payment detected",
  order_expired: "Order expired",
  payment_confirmed: "Payment confirmed",
  payment_underpaid: "Underpaid: less than asked arrived",
  payment_overpaid: "Overpaid: more than asked arrived",
  additional_payment: "Another payment arrived",
  payment_reverted: "Payment reverted by a chain reorganisation",
  webhook_delivered: "Webhook delivered",
  order_completed: "Merchant notified, order completed",
  webhook_failed: "Webhook failed: the merchant was not notified",
  webhook_retry_requested: "Webhook retry requested",
  sweep_completed: "Swept to the cold wallet",
  sweep_failed: "Sweep failed",
  sweep_retry_requested: "Sweep retry requested",
  order_cancelled: "Order cancelled",
  manually_resolved: "Underpayment accepted",
  transfer_attached: "Transfer attached",
  payout_created: "Payout created",
  refund_created: "Refund created",
  payout_approved: "Approved",
  payout_rejected: "Rejected",
  payout_cancelled: "Cancelled",
  payout_sending: "Sending",
  payout_completed: "Sent and confirmed",
  payout_failed: "Failed",
  address_given: "Payer gave an address",
};

export function eventLabel(type: string): string {
  return EVENTS[type] ?? humanize(type);
}

/** An audit action ("operator.totp_enable") in words ("Operator two-factor enable"); the code stays filterable. */
export function auditActionLabel(action: string): string {
  return humanize(action).replace(/\btotp\b/gi, "two-factor");
}

const ROLES: Record<string, string> = {
  owner: "Owner",
  admin: "Admin",
  operator: "Operator",
  viewer: "Viewer",
};

export function roleLabel(role: string): string {
  return ROLES[role] ?? humanize(role);
}

/** Who did something: an operator's email, the owner, the system, or a merchant's API key. */
export function actorLabel(actor: string | null | undefined): string {
  if (!actor) return "—";
  if (/^sg_(test|live)_/.test(actor)) return "Merchant (API)";
  if (actor === "owner") return "Owner";
  if (actor === "system") return "Stablegate";
  return actor;
}
