import { describe, expect, it } from "vitest";
import { countdown, displayAmount, remaining, toMicro, trimAmount } from "../../web/src/checkout/amounts.js";
import type { CheckoutStatus } from "../../web/src/checkout/api.js";
import { EXPIRED_POLL_MS, POLL_MS, viewOf } from "../../web/src/checkout/view.js";

const status = (overrides: Partial<CheckoutStatus>): CheckoutStatus => ({
  id: "00000000-0000-4000-8000-000000000001",
  status: "pending",
  merchant_name: "Shop",
  amount_expected: "10.000000",
  amount_received: "0.000000",
  currency: "USDT",
  chain: "tron",
  network: "mainnet",
  chain_name: "TRON",
  token_standard: "TRC20",
  address: "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH",
  payment_uri: "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH",
  tx_hash: null,
  confirmations: 0,
  confirmations_required: 19,
  expires_at: "2026-01-01T00:30:00.000Z",
  explorer_url: null,
  ...overrides,
});

describe("checkout page amounts", () => {
  it("works in integer micro-units: no float rounding, no precision loss on large amounts", () => {
    expect(toMicro("0.3")).toBe(300_000n);
    expect(remaining("0.300000", "0.100000")).toBe("0.2");
    expect(remaining("90071992547.409931", "0.000001")).toBe("90071992547.40993");
    expect(remaining("10.000000", "10.000000")).toBeNull();
    expect(remaining("10.000000", "12.000000")).toBeNull();
    expect(displayAmount(1n)).toBe("0.000001");
    expect(trimAmount("3.000000")).toBe("3");
    expect(trimAmount("not a number")).toBe("not a number");
    expect(toMicro("1.1234567")).toBeNull();
  });

  it("counts down in m:ss, h:mm:ss past an hour, and stops at 0:00", () => {
    const expires = "2026-01-01T01:00:00.000Z";
    expect(countdown(expires, Date.parse("2026-01-01T00:55:01.000Z"))).toBe("4:59");
    expect(countdown(expires, Date.parse("2025-12-31T23:29:55.000Z"))).toBe("1:30:05");
    expect(countdown(expires, Date.parse("2026-01-01T02:00:00.000Z"))).toBe("0:00");
  });
});

describe("checkout page view of each status", () => {
  it("asks for the exact amount while pending, and for the rest when underpaid", () => {
    expect(viewOf(status({}))).toMatchObject({ phase: "awaiting", amountToSend: "10", showCountdown: true });
    expect(viewOf(status({ status: "underpaid", amount_received: "9.990000" }))).toMatchObject({
      phase: "partial",
      amountToSend: "0.01",
      pollMs: POLL_MS,
    });
  });

  it("shows payments as received to the payer, stops polling, and names an overpayment's excess", () => {
    for (const s of ["confirmed", "completed", "callback_failed"] as const) {
      expect(viewOf(status({ status: s, amount_received: "10.000000" }))).toMatchObject({
        phase: "paid",
        headline: "Payment received",
        pollMs: null,
        amountToSend: null,
      });
    }
    expect(viewOf(status({ status: "overpaid", amount_received: "10.500000" })).detail).toBe(
      "You sent 10.5 USDT, 0.5 more than the 10 asked. Contact Shop about the difference.",
    );
  });

  it("follows the outcome, not the webhook's delivery: an underpaid order stays underpaid once completed", () => {
    // Before the webhook is delivered the address still belongs to the order: ask for the rest there.
    expect(viewOf(status({ status: "underpaid", amount_received: "9.500000" }))).toMatchObject({
      phase: "partial",
      headline: "Partially paid",
      detail: "Received 9.5 of 10 USDT. Send the remaining 0.5 USDT to the same address.",
      amountToSend: "0.5",
    });
    // After delivery (completed) or a failed delivery the order is final: never "Thank you", never
    // the address (it returns to the pool), and the missing amount is still named.
    for (const s of ["completed", "callback_failed", "confirmed"] as const) {
      const view = viewOf(status({ status: s, amount_received: "9.500000" }));
      expect(view).toMatchObject({
        phase: "short",
        headline: "Partially paid",
        amountToSend: null,
        pollMs: null,
      });
      expect(view.detail).toBe(
        "Received 9.5 of 10 USDT: 0.5 USDT is missing. This address no longer accepts payments for this order; do not send more to it. Contact Shop to pay the remaining 0.5 USDT.",
      );
      expect(view.detail).not.toContain("Thank you");
    }
  });

  it("names an overpayment before and after the webhook's delivery", () => {
    for (const s of ["overpaid", "completed", "callback_failed"] as const) {
      expect(viewOf(status({ status: s, amount_received: "12.250000" }))).toMatchObject({
        phase: "overpaid",
        headline: "Payment received",
        detail: "You sent 12.25 USDT, 2.25 more than the 10 asked. Contact Shop about the difference.",
        amountToSend: null,
        pollMs: null,
      });
    }
  });

  it("caps the confirmations shown, and keeps watching an expired order slowly for a late payment", () => {
    expect(viewOf(status({ status: "detected", confirmations: 25 })).detail).toBe(
      "Waiting for confirmations: 19 of 19.",
    );
    expect(viewOf(status({ status: "expired" }))).toMatchObject({
      phase: "expired",
      amountToSend: null,
      pollMs: EXPIRED_POLL_MS,
    });
  });
});
