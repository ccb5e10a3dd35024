/**
 * The refund claim page's pure parts (web/src/refund/view.ts): the polling backoff, the address
 * format hint, the words for the server's refusals, and what each state says.
 */
import { describe, expect, it } from "vitest";
import type { RefundClaimView } from "../../web/src/refund/api.js";
import {
  addressLabel,
  expiryText,
  FINAL,
  FIRST_POLL_MS,
  looksLikeTronAddress,
  MAX_POLL_MS,
  nextDelay,
  refusalText,
  viewOf,
} from "../../web/src/refund/view.js";
import { addressFieldLabel, CHAIN_TEXT } from "../../web/src/refund/chains.js";

const claim = (over: Partial<RefundClaimView>): RefundClaimView => ({
  status: "awaiting_address",
  amount: "5.000000",
  currency: "USDT",
  chain: "tron",
  network: "devnet",
  address_format: "base58check, starting with T",
  merchant_name: "Shop",
  merchant_order: "order-1",
  address: null,
  tx_hash: null,
  tx_explorer_url: null,
  claim_expires_at: "2026-01-22T12:00:00.000Z",
  claimable: true,
  ...over,
});

describe("refund claim view", () => {
  it("backs off by half while nothing changes, up to 30 s, and starts over after a change", () => {
    const delays: number[] = [];
    let delay = FIRST_POLL_MS;
    for (let i = 0; i < 10; i++) delays.push((delay = nextDelay(delay, false)));
    expect(delays.slice(0, 3)).toEqual([3000, 4500, 6750]);
    expect(delays.at(-1)).toBe(MAX_POLL_MS);
    expect(nextDelay(MAX_POLL_MS, true)).toBe(FIRST_POLL_MS);
  });

  it("hints at the TRON address format and names each refusal", () => {
    expect(looksLikeTronAddress("TJRabPrwbZy45sbavfcjinPJC18kjpRTv8")).toBe(true);
    expect(looksLikeTronAddress("0x1234")).toBe(false);
    expect(looksLikeTronAddress("TJRabPrwbZy45sbavfcjinPJC18kjpRTv0")).toBe(false); // 0 is not base58
    expect(refusalText("INVALID_ADDRESS", "x")).toContain("not a valid TRON address");
    expect(refusalText("ADDRESS_NOT_ALLOWED", "x")).toContain("belongs to the payment service");
    expect(refusalText("CLAIM_EXPIRED", "x")).toContain("expired");
    expect(refusalText("SOMETHING_ELSE", "the reason")).toContain("the reason");
  });

  it("asks for an address on the refund's chain, in its token", () => {
    const onPolygon = claim({ chain: "polygon", currency: "USDC" });
    expect(addressFieldLabel(onPolygon)).toBe("Your Polygon address (USDC, ERC-20)");
    expect(addressFieldLabel(claim({}))).toBe("Your TRON address (USDT, TRC20)");
    expect(viewOf(onPolygon, Date.parse("2026-01-20T12:00:00.000Z")).detail).toContain(
      "Give a Polygon address that can receive USDC",
    );
    expect(CHAIN_TEXT.polygon.looksLike("0x" + "aB".repeat(20))).toBe(true);
    expect(CHAIN_TEXT.polygon.looksLike("TJRabPrwbZy45sbavfcjinPJC18kjpRTv8")).toBe(false);
    expect(refusalText("INVALID_ADDRESS", "x", "bsc")).toContain("not a valid BNB Smart Chain address");
  });

  it("says what each state means, and stops polling at the final ones", () => {
    const now = Date.parse("2026-01-20T12:00:00.000Z");
    expect(viewOf(claim({}), now).headline).toBe("Enter the address for your refund");
    expect(viewOf(claim({ claimable: false }), Date.parse("2026-01-23T00:00:00Z")).headline).toBe(
      "This refund link has expired",
    );
    expect(viewOf(claim({ status: "pending_approval", claimable: false }), now).headline).toBe(
      "Waiting for approval",
    );
    expect(viewOf(claim({ status: "completed", claimable: false }), now).tone).toBe("done");
    for (const status of ["failed", "rejected", "cancelled"] as const) {
      expect(viewOf(claim({ status, claimable: false }), now).tone).toBe("bad");
    }
    expect([...FINAL].sort()).toEqual(["cancelled", "completed", "failed", "rejected"]);
  });

  it("says 'Sent to' only once the USDT left, and when the link expires while it can be used", () => {
    expect(addressLabel("pending_approval")).toBe("To be sent to");
    expect(addressLabel("approved")).toBe("To be sent to");
    expect(addressLabel("sending")).toBe("Sending to");
    expect(addressLabel("completed")).toBe("Sent to");
    for (const status of ["failed", "rejected", "cancelled"] as const)
      expect(addressLabel(status)).toBe("Your address");
    const now = Date.parse("2026-01-20T12:00:00.000Z");
    expect(expiryText(claim({}), now)).toBe("This link expires on 22 Jan 2026, 12:00 UTC (in 2 days).");
    expect(expiryText(claim({ claimable: false }), now)).toBeNull();
    expect(expiryText(claim({ claim_expires_at: null }), now)).toBeNull();
  });
});
