import { CHAIN_IDS, CURRENCIES } from "../../chains/chain-types.js";
import { z } from "zod";
import { errorReply } from "./error-reply.js";
import {
  isoTimestamp,
  merchantBalanceReply,
  merchantBalancesReply,
  merchantIdParams,
  merchantSummary,
} from "./merchant-fields.js";

/** SPEC.md 2.2 as listed by the admin API. */
export const adminOrderReply = z.object({
  id: z.string(),
  external_id: z.string(),
  merchant_id: z.string(),
  merchant_name: z.string(),
  address: z.string(),
  amount_expected: z.string(),
  amount_received: z.string(),
  chain: z.enum(CHAIN_IDS),
  currency: z.enum(CURRENCIES),
  status: z.string(),
  tx_hash: z.string().nullable(),
  created_at: isoTimestamp,
  expires_at: isoTimestamp,
});

/** SPEC.md 2.3. */
export const incidentReply = z.object({
  id: z.string(),
  created_at: isoTimestamp,
  event_type: z.string(),
  payload: z.record(z.string(), z.unknown()),
  order_id: z.string(),
  order_status: z.string(),
  external_id: z.string(),
  merchant_name: z.string(),
});

/** How one currency's balance is made (src/ledger/balance-breakdown.ts). */
const balanceBreakdownReply = z.object({
  payments: z.string().describe("confirmed order payments, and stray transfers attached to an order"),
  deposits: z.string().describe("confirmed deposits to static addresses"),
  stray_transfers: z.string().describe("stray transfers credited to be refunded"),
  refunds: z.string().describe("refunds sent (negative)"),
  payouts: z.string().describe("payouts sent (negative)"),
  adjustments: z.string().describe("any other ledger entry"),
  pending: z.string().describe("refunds and payouts reserved, not yet sent (negative: -reserved)"),
  available: z.string().describe("the sum of the lines above: the available balance"),
});

/** DESIGN.md 8: merchant fields and the SPEC.md 2.1 stats flat on one object. */
export const merchantDetailReply = merchantSummary.extend({
  order_count: z.number().int(),
  completed_count: z.number().int(),
  callback_failed_count: z.number().int(),
  active_order_count: z.number().int(),
  total_received: z.string(),
  last_order_at: isoTimestamp.nullable(),
  success_rate: z.string(),
  incident_count: z.number().int(),
  balance: merchantBalanceReply,
  balances: merchantBalancesReply,
  balance_breakdown: balanceBreakdownReply.describe(
    "how the USDT balance is made, from the double-entry ledger; signed 6-decimal strings that add up to available",
  ),
  balance_breakdowns: z
    .partialRecord(z.enum(CURRENCIES), balanceBreakdownReply)
    .describe("how each currency's balance is made: the same currencies as `balances`"),
  recent_orders: z.array(adminOrderReply),
  recent_incidents: z.array(incidentReply),
});

export const getMerchantDetailSchema = {
  tags: ["admin"],
  security: [{ adminCookie: [] }],
  summary: "One merchant with its stats, 10 most recent orders and 10 most recent incidents",
  params: merchantIdParams,
  response: { 200: merchantDetailReply, 401: errorReply, 404: errorReply },
};
