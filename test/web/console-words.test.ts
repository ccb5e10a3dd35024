/**
 * The console's pure parts: when an order's webhook is failing, an outcome its status hides, and the
 * words and formats every page uses. Which actions an order allows is the server's
 * (test/orders/order-actions.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { OrderDetail } from "../../web/src/api-types.js";
import { formatNative, formatUsdt, shortId } from "../../web/src/admin/format.js";
import { actorLabel, fieldLabel, statusLabel } from "../../web/src/admin/labels.js";
import { amountOutcome, failingWebhook } from "../../web/src/admin/orders/order-actions.js";
import { describeChange, describePayload } from "../../web/src/admin/describe.js";
import { formatDate, relativeTime } from "../../web/src/dates.js";

type Delivery = OrderDetail["webhooks"][number];
const delivery = (over: Partial<Delivery>): Delivery => ({
  id: "d1",
  event: "payment.confirmed",
  idempotency_key: "k",
  status: "pending",
  attempts: 0,
  max_attempts: 10,
  next_attempt_at: "2026-01-01T00:01:00.000Z",
  delivered_at: null,
  last_error: null,
  last_status_code: null,
  created_at: "2026-01-01T00:00:00.000Z",
  attempt_log: [],
  ...over,
});
const order = (status: OrderDetail["order"]["status"]) => ({ status }) as OrderDetail["order"];

describe("order actions follow the order's state", () => {
  it("keeps an underpaid or overpaid outcome visible once the order is completed", () => {
    const o = (status: OrderDetail["order"]["status"], received: string) => ({
      status,
      amount_expected: "10.000000",
      amount_received: received,
    });
    expect(amountOutcome(o("completed", "9.500000"))).toBe("underpaid");
    expect(amountOutcome(o("callback_failed", "12.000000"))).toBe("overpaid");
    expect(amountOutcome(o("completed", "10.000000"))).toBeNull();
    expect(amountOutcome(o("underpaid", "9.500000"))).toBeNull(); // the status says it already
  });

  it("flags a failing webhook, never a delivered one", () => {
    expect(failingWebhook({ order: order("confirmed"), webhooks: [delivery({})] })).toBeNull();
    const failing = delivery({ attempts: 1, last_status_code: 500, last_error: "HTTP 500" });
    expect(failingWebhook({ order: order("confirmed"), webhooks: [failing] })).toBe(failing);
    expect(
      failingWebhook({
        order: order("completed"),
        webhooks: [delivery({ status: "delivered", attempts: 2, last_status_code: 200 })],
      }),
    ).toBeNull();
  });
});

describe("people's words", () => {
  it("labels fields and statuses without codes, and names actors as people", () => {
    expect(fieldLabel("amount_expected")).toBe("Amount asked");
    expect(fieldLabel("some_new_field")).toBe("Some new field");
    expect(statusLabel("pending_approval")).toBe("Awaiting approval");
    expect(statusLabel("awaiting_address")).toBe("Awaiting payer's address");
    expect(statusLabel("callback_failed")).toBe("Webhook failed");
    expect(actorLabel("sg_test_kUnzGN")).toBe("Merchant (API)");
    expect(actorLabel("vera@example.com")).toBe("vera@example.com");
  });

  it("formats amounts with six decimals and the unit, dates in one format, ids by their distinct end", () => {
    expect(formatUsdt("9.5")).toBe("9.500000 USDT");
    expect(formatUsdt("1234567.000001")).toBe("1,234,567.000001 USDT");
    expect(formatUsdt("0.345", "TRX")).toBe("0.345000 TRX");
    // A gas coin's 18 decimals: six shown, cut not rounded (what is held is at least that), the
    // exact value kept; past 2^53 wei a float would have lost the last digits.
    expect(formatNative("1.234567891234567891", "ETH")).toEqual({
      shown: "1.234567 ETH",
      exact: "1.234567891234567891 ETH",
    });
    expect(formatNative("12345.999999999999999999", "BNB").shown).toBe("12,345.999999 BNB");
    expect(formatNative("0.000000000000000001", "ETH").shown).toBe("< 0.000001 ETH");
    expect(formatNative("0.000000000000000000", "POL").shown).toBe("0.000000 POL");
    expect(formatNative("7", "ETH").shown).toBe("7.000000 ETH");
    expect(formatDate("2026-01-22T12:00:00.000Z")).toBe("22 Jan 2026, 12:00 UTC");
    const now = Date.parse("2026-01-22T12:00:00.000Z");
    expect(relativeTime("2026-01-22T09:00:00.000Z", now)).toBe("3 hours ago");
    expect(relativeTime("2026-01-22T12:00:20.000Z", now)).toBe("just now");
    expect(shortId("01a2247c-0867-7851-898b-4a8e3e214b89")).toBe("…3e214b89");
  });

  it("reads event payloads and audit changes as sentences, without JSON or internal keys", () => {
    const text = describePayload({
      from: "detected",
      to: "underpaid",
      amount_received: "9.500000",
      idempotency_key: "underpaid_1795908096687",
      delivery_id: "evt_01a22476",
    });
    expect(text).toBe("Confirming → Underpaid · Amount received: 9.500000 USDT");
    expect(describeChange({ is_active: true }, { is_active: false })).toBe("Active: yes → no");
    expect(describeChange(null, { name: "Acme", api_key_prefix: "sg_test_x", webhook_secret: "s" })).toBe(
      "Name: Acme",
    );
  });
});
