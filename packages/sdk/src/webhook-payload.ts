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
  currency: string;
  network: string;
  tx_hash: string | null;
  from_address: string | null;
  to_address: string;
  status: string;
  timestamp: string;
}
