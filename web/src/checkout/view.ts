/** What the payer sees for each order status, kept apart from React so it is easy to read and test. */
import { displayAmount, toMicro, trimAmount } from "./amounts.js";
import type { CheckoutStatus } from "./api.js";

export type Phase = "awaiting" | "confirming" | "partial" | "short" | "overpaid" | "paid" | "expired";

export interface View {
  phase: Phase;
  headline: string;
  detail: string | null;
  /** The amount the payer should send now; null hides the payment details (QR, address). */
  amountToSend: string | null;
  showCountdown: boolean;
  /** How often to ask again, in ms; null stops polling (the outcome is final for the payer). */
  pollMs: number | null;
}

export const POLL_MS = 3000;
/** An expired order can still receive a late payment, which is credited: keep watching, slowly. */
export const EXPIRED_POLL_MS = 15_000;

export function viewOf(s: CheckoutStatus): View {
  const expected = trimAmount(s.amount_expected);
  switch (s.status) {
    case "pending":
      return {
        phase: "awaiting",
        headline: "Awaiting payment",
        detail: `Send exactly ${expected} ${s.currency} to the address below.`,
        amountToSend: expected,
        showCountdown: true,
        pollMs: POLL_MS,
      };
    case "detected":
      return {
        phase: "confirming",
        headline: "Payment detected",
        detail: `Waiting for confirmations: ${Math.min(s.confirmations, s.confirmations_required)} of ${s.confirmations_required}.`,
        amountToSend: null,
        showCountdown: false,
        pollMs: POLL_MS,
      };
    case "underpaid":
    case "overpaid":
    case "confirmed":
    case "completed":
    case "callback_failed":
      // The payer reads the outcome (what arrived against what was asked), never the delivery of the
      // merchant's webhook: completed and callback_failed only say whether the merchant was told.
      return outcomeView(s);
    case "expired":
    case "cancelled":
      // A cancelled request is shown like an expired one: a payment that still arrives is credited
      // as a late payment.
      return {
        phase: "expired",
        headline:
          s.status === "expired" ? "This payment request has expired" : "This payment request was cancelled",
        detail: `Do not send funds to its address. If you already paid, contact ${s.merchant_name}.`,
        amountToSend: null,
        showCountdown: false,
        pollMs: EXPIRED_POLL_MS,
      };
  }
}

/** The order has an outcome: received compared with expected, in integer micro-units. */
function outcomeView(s: CheckoutStatus): View {
  const expected = trimAmount(s.amount_expected);
  const received = trimAmount(s.amount_received);
  const difference = (toMicro(s.amount_received) ?? 0n) - (toMicro(s.amount_expected) ?? 0n);
  const done = { amountToSend: null, showCountdown: false, pollMs: null };
  if (difference < 0n) {
    const missing = displayAmount(-difference);
    // Only an order still in its underpaid outcome holds its address for this payment. Once the order
    // is final the address returns to the pool after a quarantine and may serve another payer, so the
    // payer is sent to the merchant instead of to the address.
    if (s.status === "underpaid") {
      return {
        phase: "partial",
        headline: "Partially paid",
        detail: `Received ${received} of ${expected} ${s.currency}. Send the remaining ${missing} ${s.currency} to the same address.`,
        amountToSend: missing,
        showCountdown: false,
        pollMs: POLL_MS,
      };
    }
    return {
      phase: "short",
      headline: "Partially paid",
      detail: `Received ${received} of ${expected} ${s.currency}: ${missing} ${s.currency} is missing. This address no longer accepts payments for this order; do not send more to it. Contact ${s.merchant_name} to pay the remaining ${missing} ${s.currency}.`,
      ...done,
    };
  }
  if (difference > 0n) {
    return {
      phase: "overpaid",
      headline: "Payment received",
      detail: `You sent ${received} ${s.currency}, ${displayAmount(difference)} more than the ${expected} asked. Contact ${s.merchant_name} about the difference.`,
      ...done,
    };
  }
  return {
    phase: "paid",
    headline: "Payment received",
    detail: `${received} ${s.currency} received. Thank you!`,
    ...done,
  };
}
