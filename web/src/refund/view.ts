/**
 * What the refund claim page says for each state of a refund (DESIGN.md 14), and how often it
 * polls: quickly at first, backing off to 30 s while nothing changes, never once the refund ended.
 */
import { formatDate, relativeTime } from "../dates.js";
import type { RefundClaimView } from "./api.js";
import { CHAIN_TEXT } from "./chains.js";

export type Status = RefundClaimView["status"];

export const FINAL: ReadonlySet<Status> = new Set(["completed", "failed", "rejected", "cancelled"]);

/** The steps a claimed refund goes through, in order, as the page lists them. */
export const STEPS: ReadonlyArray<{ status: Status; label: string }> = [
  { status: "pending_approval", label: "Waiting for approval" },
  { status: "approved", label: "Approved" },
  { status: "sending", label: "Sending" },
  { status: "completed", label: "Completed" },
];

export interface ClaimView {
  headline: string;
  detail: string | null;
  tone: "waiting" | "done" | "bad";
}

export function viewOf(claim: RefundClaimView, now: number): ClaimView {
  switch (claim.status) {
    case "awaiting_address":
      return claim.claimable
        ? {
            headline: "Enter the address for your refund",
            detail: `Give a ${CHAIN_TEXT[claim.chain].name} address that can receive ${claim.currency} (${CHAIN_TEXT[claim.chain].standard}). It cannot be changed afterwards.`,
            tone: "waiting",
          }
        : {
            headline: "This refund link has expired",
            detail:
              claim.claim_expires_at !== null && Date.parse(claim.claim_expires_at) <= now
                ? "Refund links are valid for 7 days. Ask the merchant for a new one."
                : "Ask the merchant for a new link.",
            tone: "bad",
          };
    case "pending_approval":
      return {
        headline: "Waiting for approval",
        detail: "The merchant's team approves every refund before it is sent.",
        tone: "waiting",
      };
    case "approved":
      return { headline: "Approved", detail: "The refund will be sent shortly.", tone: "waiting" };
    case "sending":
      return {
        headline: "Sending",
        detail: "The transaction is on its way; it is final once the network confirms it.",
        tone: "waiting",
      };
    case "completed":
      return {
        headline: "Refund completed",
        detail: `The ${claim.currency} has been sent to your address.`,
        tone: "done",
      };
    case "failed":
      return {
        headline: "The refund could not be sent",
        detail: "Nothing left the merchant's wallet for it. Contact the merchant.",
        tone: "bad",
      };
    case "rejected":
      return { headline: "The refund was declined", detail: "Contact the merchant.", tone: "bad" };
    case "cancelled":
      return { headline: "The refund was cancelled", detail: "Contact the merchant.", tone: "bad" };
  }
}

/**
 * The label of the payer's address: "Sent to" only once the money left for it. Before that the refund
 * may still be declined, so the page says where it will go, not where it went.
 */
export function addressLabel(status: Status): string {
  switch (status) {
    case "completed":
      return "Sent to";
    case "sending":
      return "Sending to";
    case "pending_approval":
    case "approved":
      return "To be sent to";
    default:
      return "Your address";
  }
}

/** "This link expires on 22 Jan 2026, 12:00 UTC (in 2 days)." while an address can still be given. */
export function expiryText(claim: RefundClaimView, now: number): string | null {
  if (!claim.claimable || claim.claim_expires_at === null) return null;
  return `This link expires on ${formatDate(claim.claim_expires_at)} (${relativeTime(claim.claim_expires_at, now)}).`;
}

export const FIRST_POLL_MS = 2_000;
export const MAX_POLL_MS = 30_000;

/** The next delay: back off by half while nothing changed, start over after a change. */
export function nextDelay(previous: number, changed: boolean): number {
  return changed ? FIRST_POLL_MS : Math.min(MAX_POLL_MS, Math.round(previous * 1.5));
}

/** A TRON base58 address as the payer types it (the server checks the checksum). */
export function looksLikeTronAddress(value: string): boolean {
  return CHAIN_TEXT.tron.looksLike(value);
}

/** The server's refusal, in the payer's words; `chain` names the refund's chain (default TRON). */
export function refusalText(code: string, message: string, chain: RefundClaimView["chain"] = "tron"): string {
  switch (code) {
    case "INVALID_ADDRESS":
    case "INVALID_BODY":
      return `This is not a valid ${CHAIN_TEXT[chain].name} address. Check it and try again.`;
    case "ADDRESS_NOT_ALLOWED":
      return "This address belongs to the payment service itself and cannot receive a refund. Use your own wallet's address.";
    case "CLAIM_EXPIRED":
      return "This refund link has expired. Ask the merchant for a new one.";
    case "INVALID_STATE":
      return "An address was already given for this refund.";
    case "RATE_LIMITED":
      return "Too many attempts; wait a minute and try again.";
    default:
      return `The refund service refused the address: ${message}`;
  }
}
