/**
 * Field schemas shared by the merchant routes. Lengths are checked in code points (as PostgreSQL
 * counts them) by the same rules the domain applies; minLength/maxLength are stated for OpenAPI.
 */
import { z } from "zod";
import { CURRENCIES, type Currency } from "../../chains/chain-types.js";
import type { MerchantBalance } from "../../ledger/post-ledger.js";
import { formatAmount } from "../../money.js";
import {
  NAME_MAX,
  NAME_MIN,
  WEBHOOK_SECRET_MAX,
  WEBHOOK_SECRET_MIN,
  nameProblem,
  webhookSecretProblem,
} from "../../merchants/merchant-input.js";

function checkedString(problem: (value: string) => string | undefined, min: number, max: number) {
  return z
    .string()
    .superRefine((value, check) => {
      const message = problem(value);
      if (message) check.addIssue({ code: "custom", message });
    })
    .meta({ minLength: min, maxLength: max });
}

export const merchantName = () => checkedString(nameProblem, NAME_MIN, NAME_MAX);
export const webhookSecret = () =>
  checkedString(webhookSecretProblem, WEBHOOK_SECRET_MIN, WEBHOOK_SECRET_MAX);

/** Any string: a malformed id answers 404 like an unknown one (checked in the domain with isUuid). */
export const merchantIdParams = z.object({ id: z.string() });

export const isoTimestamp = z.string().meta({ format: "date-time" });

/** The merchant fields every read returns (never webhook_secret, never the key). */
export const merchantSummary = z.object({
  id: z.string(),
  name: z.string(),
  api_key_prefix: z.string(),
  is_active: z.boolean(),
  created_at: isoTimestamp,
});

/** DESIGN.md 14: the merchant's ledger balance in USDT (SPEC's `balance`), 6-decimal strings. */
export const merchantBalanceReply = z.object({
  available: z.string().describe("USDT the merchant may refund or pay out now"),
  reserved: z.string().describe("USDT held by refunds and payouts not yet completed"),
});

/**
 * DESIGN.md 16 "Balances": the balance per currency, whatever chain the money arrived on; every
 * currency the deployment enables (zero where none), and any other the merchant still holds.
 */
export const merchantBalancesReply = z
  .partialRecord(
    z.enum(CURRENCIES),
    z.object({
      available: z.string().describe("the currency the merchant may refund or pay out now"),
      reserved: z.string().describe("the currency held by refunds and payouts not yet completed"),
    }),
  )
  .describe(
    "the balance per currency (USDT, USDC), whatever chain the money arrived on; `balance` is its USDT entry",
  );

/** A balance as replies show it: 6-decimal strings. */
export function formatBalance(balance: MerchantBalance): { available: string; reserved: string } {
  return { available: formatAmount(balance.available), reserved: formatAmount(balance.reserved) };
}

/** Every currency's balance as replies show it. */
export function formatBalances(
  balances: Partial<Record<Currency, MerchantBalance>>,
): Partial<Record<Currency, { available: string; reserved: string }>> {
  const out: Partial<Record<Currency, { available: string; reserved: string }>> = {};
  for (const [currency, balance] of Object.entries(balances) as [Currency, MerchantBalance][]) {
    out[currency] = formatBalance(balance);
  }
  return out;
}
