/** What the payer sees for each order status, kept apart from React so it is easy to read and test. */
import { displayAmount, remaining, toMicro, trimAmount } from "./amounts.js";
import type { CheckoutStatus } from "./api.js";

export type Phase = "awaiting" | "confirming" | "partial" | "paid" | "expired";

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
  const received = trimAmount(s.amount_received);
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
    case "underpaid": {
      const left = remaining(s.amount_expected, s.amount_received);
      return {
        phase: "partial",
        headline: "Partially paid",
        detail: `Received ${received} of ${expected} ${s.currency}. Send the remaining ${left ?? "amount"} ${s.currency} to the same address.`,
        amountToSend: left,
        showCountdown: false,
        pollMs: POLL_MS,
      };
    }
    case "overpaid": {
      const extra = (toMicro(s.amount_received) ?? 0n) - (toMicro(s.amount_expected) ?? 0n);
      return {
        phase: "paid",
        headline: "Payment received",
        detail: `You sent ${received} ${s.currency}, ${displayAmount(extra > 0n ? extra : 0n)} more than the ${expected} asked. Contact ${s.merchant_name} about the difference.`,
        amountToSend: null,
        showCountdown: false,
        pollMs: null,
      };
    }
    case "confirmed":
    case "completed":
    case "callback_failed":
      // callback_failed is the merchant's webhook problem, not the payer's: the payment is complete.
      return {
        phase: "paid",
        headline: "Payment received",
        detail: `${received} ${s.currency} received. Thank you!`,
        amountToSend: null,
        showCountdown: false,
        pollMs: null,
      };
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
