/**
 * The outcome events and the webhook payload: the one home of these shapes, free of imports, so the
 * merchant-side verifier (and the SDK's declarations) never reach the database or ORM types.
 */
export const OUTCOME_EVENTS = ["payment.confirmed", "payment.underpaid", "payment.overpaid"] as const;
export type OutcomeEvent = (typeof OUTCOME_EVENTS)[number];

export interface WebhookPayload {
  event: OutcomeEvent;
  order_id: string;
  external_id: string;
  amount_expected: string;
  amount_received: string;
  currency: "USDT" | "USDC";
  /** The chain the order was paid on. */
  chain: "tron" | "ethereum" | "bsc" | "polygon" | "arbitrum" | "base";
  /** The chain's network name (mainnet, a testnet's, devnet). */
  network: string;
  tx_hash: string | null;
  from_address: string | null;
  to_address: string;
  status: string;
  timestamp: string;
  /**
   * Present only on an outcome an operator set by hand (DESIGN.md 13: accepting an underpaid
   * payment). Receivers that ignore unknown fields are unaffected.
   */
  resolution?: "manual";
}

/** Webhooks of static deposit addresses (DESIGN.md 15). */
export const DEPOSIT_EVENTS = ["deposit.detected", "deposit.confirmed"] as const;
export type DepositEvent = (typeof DEPOSIT_EVENTS)[number];

export interface DepositWebhookPayload {
  event: DepositEvent;
  deposit_id: string;
  deposit_address_id: string;
  customer_ref: string;
  amount: string;
  /** The token the deposit was paid in. */
  currency: "USDT" | "USDC";
  /** The chain the deposit was paid on (one EVM address is paid on every EVM chain). */
  chain: "tron" | "ethereum" | "bsc" | "polygon" | "arbitrum" | "base";
  /** The chain's network name (mainnet, a testnet's, devnet). */
  network: string;
  tx_hash: string;
  from_address: string;
  to_address: string;
  status: "detected" | "confirmed";
  confirmations: number;
  /** The amount is below DEPOSIT_MIN_USDT; it is credited all the same. */
  below_minimum: boolean;
  /** "disabled" when the deposit reached an address the merchant had disabled. */
  address_status: "active" | "disabled";
  timestamp: string;
}

/**
 * Webhooks of refunds and payouts (DESIGN.md 14), sent only to the callback_url given when the
 * refund or payout was created.
 */
export const PAYOUT_WEBHOOK_EVENTS = [
  "refund.completed",
  "refund.failed",
  "payout.completed",
  "payout.failed",
] as const;
export type PayoutWebhookEvent = (typeof PAYOUT_WEBHOOK_EVENTS)[number];

export interface PayoutWebhookPayload {
  event: PayoutWebhookEvent;
  payout_id: string;
  kind: "refund" | "payout";
  /** The refunded order (refunds of an order); null for payouts and refunds of a stray transfer. */
  order_id: string | null;
  /** The merchant's own id of a payout; null for refunds. */
  external_id: string | null;
  amount: string;
  /** USDT or USDC. */
  currency: string;
  /** The chain it is paid on: tron, ethereum, bsc, polygon, arbitrum or base. */
  chain: string;
  /** The chain's network name (mainnet, a testnet's, devnet). */
  network: string;
  address: string | null;
  status: string;
  /** The transaction that paid it (completed), or the last one tried (failed, may be null). */
  tx_hash: string | null;
  timestamp: string;
}
