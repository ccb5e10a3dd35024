/** Schemas of refunds and payouts (DESIGN.md 14), merchant and admin. */
import { z } from "zod";
import { CHAIN_IDS, CURRENCIES } from "../../chains/chain-types.js";
import { PAYOUT_ACTIONS } from "../../payouts/payout-actions.js";
import { PAYOUT_STATUSES } from "../../payouts/payout-types.js";
import { parseAmount } from "../../money.js";
import { METADATA_MAX_BYTES } from "../../payments/create-order.js";
import { errorReply } from "./error-reply.js";
import { secondFactorFields } from "./second-factor.js";
import { reasonField } from "./resolutions.js";
import { isoTimestamp } from "./merchant-fields.js";

const AMOUNT_MESSAGE = 'must be a decimal string greater than 0 with at most 6 decimals, e.g. "10.5"';
const typeError = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : message),
});

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

const amount = z
  .string(typeError(AMOUNT_MESSAGE))
  .refine((value) => (parseAmount(value) ?? 0n) > 0n, AMOUNT_MESSAGE)
  .meta({ pattern: "^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$", example: "10.5" });
const address = z.string(typeError("must be a string")).max(64, "must be an address of the chain").meta({
  example: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
  description: "an address of the chain: TRON base58check, or EVM 0x hex (EIP-55 where mixed case)",
});
// Any string: a pair this deployment does not enable is UNSUPPORTED_CURRENCY.
const chain = z
  .string(typeError("must be a string"))
  .min(1, "must be a chain name")
  .max(32, "must be a chain name")
  .meta({ enum: [...CHAIN_IDS] });
const currency = z
  .string(typeError("must be a string"))
  .min(1, "must be a currency")
  .max(16, "must be a currency")
  .meta({ enum: [...CURRENCIES] });
const callbackUrl = z
  .string(typeError("must be a string"))
  .max(2048, "must be at most 2048 characters")
  .refine(isHttpUrl, "must be an absolute http(s) URL")
  .meta({ format: "uri" });

export const createPayoutBody = z.object({
  external_id: z
    .string(typeError("must be a string"))
    .min(1, "must be 1 to 128 characters")
    .max(128, "must be 1 to 128 characters"),
  amount,
  address,
  chain: chain.optional().describe("the chain to pay on (default: the primary chain, tron)"),
  currency: currency.optional().describe("the balance it draws and the token it pays (default USDT)"),
  callback_url: callbackUrl.optional(),
  metadata: z
    .record(z.string(), z.unknown(), { error: "must be a JSON object" })
    .refine(
      (value) => Buffer.byteLength(JSON.stringify(value)) <= METADATA_MAX_BYTES,
      `must serialize to at most ${METADATA_MAX_BYTES} bytes`,
    )
    .optional(),
});

const refundChoice = {
  chain: chain.optional().describe("the chain to refund on (default: the one the money came on)"),
  currency: currency.optional().describe("the currency the money came in (another is refused)"),
};

export const createRefundBody = z.object({
  amount,
  address: address.optional(),
  ...refundChoice,
  reason: z.string(typeError("must be a string")).max(500, "must be at most 500 characters").optional(),
  callback_url: callbackUrl.optional(),
});

export const payoutReply = z.object({
  id: z.string(),
  kind: z.enum(["refund", "payout"]),
  status: z.enum(PAYOUT_STATUSES),
  external_id: z.string().nullable(),
  order_id: z.string().nullable(),
  stray_transfer_id: z
    .string()
    .nullable()
    .describe("a refund of a stray transfer: the stray (its merchant is the house account)"),
  merchant_id: z.string(),
  amount: z.string(),
  currency: z.enum(CURRENCIES),
  chain: z.enum(CHAIN_IDS),
  network: z.string(),
  address: z.string().nullable(),
  reason: z.string().nullable(),
  callback_url: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  tx_hash: z.string().nullable(),
  tx_explorer_url: z.string().nullable(),
  trx_burnt: z.string().nullable(),
  gas_cost_wei: z
    .string()
    .nullable()
    .describe(
      "EVM chains: what its landed transactions cost in gas (gas used x effective gas price), exact wei of the chain's native coin; null on TRON (see trx_burnt) and until it is completed or failed",
    ),
  gas_cost: z.string().nullable().describe("gas_cost_wei in the native coin, exactly, with 18 decimals"),
  native_symbol: z.string().describe("the chain's native coin, which pays its fees (TRX, ETH, BNB, POL)"),
  auto_approved: z.boolean(),
  created_by: z.string(),
  decided_by: z.string().nullable(),
  created_at: isoTimestamp,
  approved_at: isoTimestamp.nullable(),
  completed_at: isoTimestamp.nullable(),
  failed_at: isoTimestamp.nullable(),
  last_error: z.string().nullable(),
});

export const createdRefundReply = payoutReply.extend({
  claim_url: z.string().nullable().describe("refunds without an address: the payer's page, shown once"),
});

const idParams = z.object({ id: z.string() });

export const listPayoutsQuery = z.object({
  kind: z.enum(["refund", "payout"]).optional(),
  status: z
    .string()
    .optional()
    .describe("one status or several separated by commas")
    .refine(
      (value) =>
        value === undefined ||
        value.split(",").every((s) => (PAYOUT_STATUSES as readonly string[]).includes(s)),
      `must be one or more of ${PAYOUT_STATUSES.join(", ")}`,
    ),
  order_id: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(100).optional(),
});

const listReply = z.object({ data: z.array(payoutReply), next_cursor: z.string().nullable() });

const merchantCommon = { tags: ["payouts"], security: [{ apiKey: [] }] };
const adminCommon = { tags: ["admin"], security: [{ adminCookie: [] }] };

export const createPayoutSchema = {
  ...merchantCommon,
  summary: "Create a payout (idempotent on external_id)",
  body: createPayoutBody,
  response: { 200: payoutReply, 201: payoutReply, 400: errorReply, 409: errorReply },
};
export const getPayoutSchema = {
  ...merchantCommon,
  summary: "One refund or payout of this merchant",
  params: idParams,
  response: { 200: payoutReply, 404: errorReply },
};
export const listPayoutsSchema = {
  ...merchantCommon,
  summary: "This merchant's refunds and payouts, newest first",
  querystring: listPayoutsQuery,
  response: { 200: listReply, 400: errorReply },
};
export const createRefundSchema = {
  ...merchantCommon,
  summary: "Refund (part of) what an order received",
  params: idParams,
  body: createRefundBody,
  response: { 201: createdRefundReply, 400: errorReply, 404: errorReply, 409: errorReply },
};

export const adminListPayoutsSchema = {
  ...adminCommon,
  summary: "Refunds and payouts of every merchant, newest first",
  querystring: listPayoutsQuery.extend({ merchant_id: z.string().optional() }),
  response: { 200: listReply, 400: errorReply },
};
const eventReply = z.object({
  id: z.string(),
  event_type: z.string(),
  from_status: z.string().nullable(),
  to_status: z.string().nullable(),
  actor: z.record(z.string(), z.unknown()).nullable(),
  payload: z.record(z.string(), z.unknown()),
  created_at: isoTimestamp,
});
const transactionReply = z.object({
  tx_hash: z.string(),
  attempt: z.number().int(),
  state: z.string(),
  mode: z.string(),
  result: z.string().nullable(),
  fee_trx: z.string().nullable(),
  energy_used: z.number().nullable(),
  nonce: z.number().int().nullable().describe("EVM: the hot wallet's nonce it was signed at; null on TRON"),
  generation: z
    .number()
    .int()
    .nullable()
    .describe("EVM: 0 for the first signing, n for its n-th replacement at a higher fee; null on TRON"),
  block_number: z.number().int().nullable(),
  gas_used: z.string().nullable().describe("EVM: the receipt's gas used; null until it lands"),
  effective_gas_price_wei: z.string().nullable().describe("EVM: the receipt's effective gas price, wei"),
  gas_cost_wei: z
    .string()
    .nullable()
    .describe(
      "EVM: gas_used x effective_gas_price_wei, exact; null for a version that has not landed (a replaced one that never lands costs nothing)",
    ),
  gas_cost: z.string().nullable().describe("gas_cost_wei in the chain's native coin, 18 decimals"),
  created_at: isoTimestamp,
  landed_at: isoTimestamp.nullable(),
});
export const adminGetPayoutSchema = {
  ...adminCommon,
  summary: "One refund or payout with its events and transactions",
  params: idParams,
  response: {
    200: z.object({
      payout: payoutReply,
      events: z.array(eventReply),
      transactions: z.array(transactionReply),
      webhook: z
        .object({
          status: z.enum(["pending", "delivered", "failed"]),
          attempts: z.number().int(),
          max_attempts: z.number().int(),
          last_error: z.string().nullable(),
          last_status_code: z.number().int().nullable(),
          next_attempt_at: isoTimestamp.nullable(),
          delivered_at: isoTimestamp.nullable(),
        })
        .nullable()
        .describe(
          "the latest delivery of its webhook; null when none was enqueued (no callback_url, or not finished)",
        ),
      claim_expires_at: isoTimestamp
        .nullable()
        .describe("a refund waiting for its payer's address: when its claim link expires"),
      actions: z
        .array(
          z.object({
            action: z.enum(PAYOUT_ACTIONS),
            allowed: z.boolean(),
            reason: z.string().nullable().describe("why not, in words; null when allowed"),
          }),
        )
        .describe("what the operator reading it may do now, each with the reason when not"),
    }),
    404: errorReply,
  },
};

export const adminReissueClaimLinkSchema = {
  ...adminCommon,
  summary:
    "Re-issue the claim link of a refund waiting for its payer's address: a new link valid for 7 days replaces the old one, which stops working",
  params: idParams,
  response: {
    200: z.object({
      claim_url: z.string().describe("the payer's page; shown once"),
      claim_expires_at: isoTimestamp,
    }),
    404: errorReply,
    409: errorReply,
  },
};
const decisionBody = z
  .object({
    reason: z.string().max(500).optional(),
    ...secondFactorFields,
  })
  .optional();
export const adminDecidePayoutSchema = (summary: string) => ({
  ...adminCommon,
  summary,
  params: idParams,
  body: decisionBody,
  response: {
    200: payoutReply,
    400: errorReply,
    401: errorReply,
    403: errorReply,
    404: errorReply,
    409: errorReply,
    429: errorReply,
  },
});
export const adminRetryPayoutWebhookSchema = {
  ...adminCommon,
  summary: "Send the latest webhook of a finished refund or payout again (10 fresh attempts)",
  params: idParams,
  response: { 202: z.object({ status: z.literal("scheduled") }), 404: errorReply, 409: errorReply },
};
export const adminCreateRefundSchema = {
  ...adminCommon,
  summary: "Refund (part of) what an order received (admin twin)",
  params: idParams,
  body: createRefundBody,
  response: { 201: createdRefundReply, 400: errorReply, 404: errorReply, 409: errorReply },
};

export const adminCreateStrayRefundSchema = {
  ...adminCommon,
  summary: "Refund a stray transfer (to the house account's books; the stray becomes resolved `refunded`)",
  params: idParams,
  body: z.object({
    amount: amount.optional().describe("default: the stray's amount less its live and completed refunds"),
    address: address.optional().describe("without one, the reply's claim_url is the payer's page"),
    ...refundChoice,
    reason: reasonField,
    callback_url: callbackUrl.optional(),
  }),
  response: { 201: createdRefundReply, 400: errorReply, 404: errorReply, 409: errorReply },
};

const countAndAmount = z.object({ count: z.number().int(), amount: z.string() });
const floatEntry = z.object({
  chain: z.enum(CHAIN_IDS),
  currency: z.enum(CURRENCIES),
  address: z.string().nullable().describe("the hot wallet on this chain, where a top-up goes"),
  balance: z
    .string()
    .nullable()
    .describe("the hot wallet's token balance the sender judges by (TRON: solidified; EVM: newest block)"),
  in_flight: countAndAmount.describe("committed to the chain and not yet in `balance`"),
  available: z.string().nullable().describe("`balance` less `in_flight`, never below zero"),
  approved: countAndAmount.describe("approved, not yet sent: what the float must cover"),
  pending_approval: countAndAmount,
  shortfall: z.string().describe("what the approved payouts lack, by the sender's check"),
  is_low: z.boolean(),
  waiting_for_float: z.number().int().describe("approved payouts the sender put back: float short"),
  error: z.string().nullable().describe("set when this float could not be read; its balances are null"),
});
export const adminPayoutFloatSchema = {
  ...adminCommon,
  summary: "The hot wallet's float per chain and token: balance, in flight, available, low or not",
  response: {
    200: z.object({
      address: z.string().nullable().describe("TRON's hot wallet, where a top-up goes"),
      usdt_balance: z.string().nullable().describe("TRON's USDT on the solidified chain"),
      trx_balance: z.string().nullable(),
      balance_error: z.string().nullable().describe("set when the balances could not be read"),
      approved: countAndAmount.describe("TRON: approved, not yet signed: what the float must cover"),
      in_flight: countAndAmount.describe("TRON: committed, not yet in the solidified balance"),
      pending_approval: countAndAmount,
      shortfall: z.string().describe("USDT missing for TRON's approved payouts"),
      is_low: z.boolean(),
      waiting_for_float: z.number().int().describe("approved payouts the sender put back: float short"),
      floats: z.array(floatEntry).describe("every enabled chain's float, one entry per token"),
    }),
  },
};

const claimReply = z.object({
  status: z.enum(PAYOUT_STATUSES),
  amount: z.string(),
  currency: z.enum(CURRENCIES),
  chain: z.enum(CHAIN_IDS),
  network: z.string(),
  address_format: z.string().describe("the chain's address format in words"),
  merchant_name: z.string(),
  merchant_order: z.string().nullable(),
  address: z.string().nullable(),
  tx_hash: z.string().nullable(),
  tx_explorer_url: z.string().nullable(),
  claim_expires_at: isoTimestamp.nullable(),
  claimable: z.boolean(),
});
const tokenParams = z.object({ token: z.string() });
export const getRefundClaimSchema = {
  tags: ["public"],
  summary: "A refund as its payer sees it on the claim page",
  params: tokenParams,
  response: { 200: claimReply, 404: errorReply },
};
export const submitRefundClaimSchema = {
  tags: ["public"],
  summary: "The payer gives the address the refund goes to (once)",
  params: tokenParams,
  body: z.object({ address }),
  response: { 200: claimReply, 400: errorReply, 404: errorReply, 409: errorReply, 410: errorReply },
};
