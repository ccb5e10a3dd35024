/** Schemas of static deposit addresses and deposits (DESIGN.md 15), merchant and admin. */
import { z } from "zod";
import { DEPOSIT_ADDRESS_STATUSES, DEPOSIT_STATUSES } from "../../deposits/deposit-statuses.js";
import { isUuid } from "../../ids.js";
import { CHAIN_IDS, CURRENCIES } from "../../chains/chain-types.js";
import { METADATA_MAX_BYTES } from "../../payments/create-order.js";
import { createPaymentBody } from "./payments.js";
import { parseAmount } from "../../money.js";
import { errorReply } from "./error-reply.js";
import { isoTimestamp } from "./merchant-fields.js";
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, paginationReply } from "./order-query.js";

const AMOUNT_MESSAGE = 'must be a decimal string greater than 0 with at most 6 decimals, e.g. "10.5"';
const simulatePaymentBodyAmount = z
  .string({ error: AMOUNT_MESSAGE })
  .refine((value) => (parseAmount(value) ?? 0n) > 0n, AMOUNT_MESSAGE)
  .meta({ pattern: "^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$", example: "25" });

const typeError = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : message),
});

export const createDepositAddressBody = z.object({
  customer_ref: z
    .string(typeError("must be a string"))
    .min(1, "must be 1 to 128 characters")
    .max(128, "must be 1 to 128 characters")
    .meta({ example: "customer-42" }),
  callback_url: createPaymentBody.shape.callback_url,
  metadata: z
    .record(z.string(), z.unknown(), { error: "must be a JSON object" })
    .refine(
      (value) => Buffer.byteLength(JSON.stringify(value)) <= METADATA_MAX_BYTES,
      `must serialize to at most ${METADATA_MAX_BYTES} bytes`,
    )
    .nullable()
    .optional(),
  notify_detected: z.boolean(typeError("must be a boolean")).optional(),
  // Any string: a chain or pair this deployment does not enable is UNSUPPORTED_CURRENCY.
  chain: z
    .string(typeError("must be a string"))
    .min(1, "must be a chain name")
    .max(32, "must be a chain name")
    .optional()
    .meta({
      enum: [...CHAIN_IDS],
      description:
        "the chain the customer pays on (default: the primary chain, tron); an EVM address serves every enabled EVM chain, and a customer asking for a second EVM chain gets the same address",
    }),
  currency: z
    .string(typeError("must be a string"))
    .min(1, "must be a currency")
    .max(16, "must be a currency")
    .optional()
    .meta({
      enum: [...CURRENCIES],
      description:
        "the token the customer is told to send (default USDT where the chain has it); every enabled token of the address's chains is credited all the same",
    }),
});

export const depositReply = z.object({
  id: z.string(),
  deposit_address_id: z.string(),
  customer_ref: z.string(),
  address: z.string().meta({ description: "the static address the deposit reached" }),
  amount: z.string().meta({ description: "the micro-units credited, 6 decimals on every chain" }),
  remainder: z.string().meta({
    description:
      "what an 18-decimal token carried below one micro-unit, as a decimal with the token's decimals (0.000000500000000000); never credited, kept on the record; 0.000000 for a 6-decimal token",
  }),
  currency: z.enum(CURRENCIES).meta({ description: "the token the deposit was paid in" }),
  chain: z.enum(CHAIN_IDS).meta({ description: "the chain the deposit was paid on" }),
  network: z.string().meta({ description: "the chain's network: mainnet, a testnet's name, or devnet" }),
  tx_hash: z.string(),
  log_index: z.number().int(),
  from_address: z.string(),
  block_number: z.number().int(),
  status: z.enum(DEPOSIT_STATUSES),
  confirmations: z.number().int(),
  below_minimum: z
    .boolean()
    .meta({ description: "the amount is below DEPOSIT_MIN_USDT (credited all the same)" }),
  address_status: z
    .enum(DEPOSIT_ADDRESS_STATUSES)
    .meta({ description: "the address's status when the deposit was detected" }),
  swept: z.boolean(),
  detected_at: isoTimestamp,
  confirmed_at: isoTimestamp.nullable(),
  reverted_at: isoTimestamp.nullable(),
  created_at: isoTimestamp,
});

export const depositAddressReply = z.object({
  id: z.string(),
  customer_ref: z.string(),
  address: z.string().meta({ description: "EIP-55 checksummed on EVM chains" }),
  status: z.enum(DEPOSIT_ADDRESS_STATUSES),
  chain: z.enum(CHAIN_IDS).meta({ description: "the chain it was asked for at creation" }),
  currency: z.enum(CURRENCIES).meta({ description: "the currency it was asked for at creation" }),
  network: z.string().meta({ description: "the network of `chain`" }),
  chains: z.array(z.enum(CHAIN_IDS)).meta({
    description: "every enabled chain of its family: deposits on each are credited to it",
  }),
  currencies: z.array(z.enum(CURRENCIES)).meta({ description: "every currency those chains take" }),
  callback_url: z.string(),
  notify_detected: z.boolean(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  deposit_count: z.number().int().meta({ description: "confirmed deposits" }),
  total_received: z.string().meta({ description: "sum of the confirmed deposits" }),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
  disabled_at: isoTimestamp.nullable(),
});

const depositAddressDetailReply = depositAddressReply.extend({
  recent_deposits: z.array(depositReply).meta({ description: "the 20 newest deposits; all: GET /deposits" }),
});

const positiveInteger = (max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,9}$/, "must be an integer")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be at least 1").max(max, `must be at most ${max}`));

const pageFields = {
  page: positiveInteger(1_000_000_000).optional().default(1),
  limit: positiveInteger(PAGE_LIMIT_MAX).optional().default(PAGE_LIMIT_DEFAULT),
};
const customerRefQuery = z.string().min(1, "must be 1 to 128 characters").max(128).optional();

const idParams = z.object({ id: z.string().max(100) });
const merchantErrors = { 401: errorReply, 403: errorReply, 429: errorReply };
const merchant = { tags: ["deposit addresses"], security: [{ apiKey: [] }] };

export const createDepositAddressSchema = {
  ...merchant,
  summary: "Create a customer's static deposit address (idempotent on customer_ref)",
  body: createDepositAddressBody,
  response: {
    200: depositAddressReply.describe("this customer_ref already has an address (answered unchanged)"),
    201: depositAddressReply,
    400: errorReply,
    ...merchantErrors,
  },
};

export const getDepositAddressSchema = {
  ...merchant,
  summary: "One of the merchant's static addresses with its newest deposits",
  params: idParams,
  response: { 200: depositAddressDetailReply, 404: errorReply, ...merchantErrors },
};

export const listDepositAddressesSchema = {
  ...merchant,
  summary: "The merchant's static addresses, newest first",
  querystring: z.object({
    ...pageFields,
    customer_ref: customerRefQuery,
    status: z.enum(DEPOSIT_ADDRESS_STATUSES, { error: "must be active or disabled" }).optional(),
  }),
  response: {
    200: z.object({ data: z.array(depositAddressReply), pagination: paginationReply }),
    400: errorReply,
    ...merchantErrors,
  },
};

export const setDepositAddressStatusSchema = (action: "disable" | "enable") => ({
  ...merchant,
  summary:
    action === "disable"
      ? "Disable a static address (deposits are still credited, flagged address_status disabled)"
      : "Enable a disabled static address",
  params: idParams,
  response: { 200: depositAddressDetailReply, 404: errorReply, ...merchantErrors },
});

const depositListQuery = {
  ...pageFields,
  deposit_address_id: z.string().max(100).optional(),
  customer_ref: customerRefQuery,
  status: z.enum(DEPOSIT_STATUSES, { error: `must be one of ${DEPOSIT_STATUSES.join(", ")}` }).optional(),
};

export const listDepositsSchema = {
  ...merchant,
  summary: "The merchant's deposits to static addresses, newest first",
  querystring: z.object(depositListQuery),
  response: {
    200: z.object({ data: z.array(depositReply), pagination: paginationReply }),
    400: errorReply,
    ...merchantErrors,
  },
};

export const getDepositSchema = {
  ...merchant,
  summary: "One deposit",
  params: idParams,
  response: { 200: depositReply, 404: errorReply, ...merchantErrors },
};

// Admin twins: the same shapes plus merchant_id, any merchant.
const admin = { tags: ["admin"] };
const adminErrors = { 401: errorReply, 403: errorReply };
const merchantId = { merchant_id: z.string() };
const adminDepositAddressReply = depositAddressReply.extend(merchantId);
const adminDepositAddressDetailReply = depositAddressDetailReply.extend(merchantId);
export const adminDepositReply = depositReply.extend(merchantId);

export const adminListDepositAddressesSchema = {
  ...admin,
  summary: "Static deposit addresses of every merchant, newest first",
  querystring: z.object({
    ...pageFields,
    customer_ref: customerRefQuery,
    merchant_id: z.string().refine(isUuid, "must be a UUID").optional(),
    status: z.enum(DEPOSIT_ADDRESS_STATUSES, { error: "must be active or disabled" }).optional(),
  }),
  response: {
    200: z.object({ data: z.array(adminDepositAddressReply), pagination: paginationReply }),
    400: errorReply,
    ...adminErrors,
  },
};

export const adminGetDepositAddressSchema = {
  ...admin,
  summary: "A static deposit address with its newest deposits",
  params: idParams,
  response: { 200: adminDepositAddressDetailReply, 404: errorReply, ...adminErrors },
};

export const adminSetDepositAddressStatusSchema = (action: "disable" | "enable") => ({
  ...admin,
  summary: action === "disable" ? "Disable a static deposit address" : "Enable a static deposit address",
  params: idParams,
  response: { 200: adminDepositAddressDetailReply, 404: errorReply, ...adminErrors },
});

export const adminListDepositsSchema = {
  ...admin,
  summary: "Deposits to static addresses of every merchant, newest first",
  querystring: z.object({
    ...depositListQuery,
    merchant_id: z.string().refine(isUuid, "must be a UUID").optional(),
  }),
  response: {
    200: z.object({ data: z.array(adminDepositReply), pagination: paginationReply }),
    400: errorReply,
    ...adminErrors,
  },
};

export const simulateDepositSchema = {
  tags: ["deposit addresses", "sandbox"],
  security: [{ apiKey: [] }],
  summary: "Send a deposit to one of your static addresses from the devnet faucet (sandbox; devnet only)",
  description:
    "A real signed transfer of the address's currency on the address's chain from that chain's devnet faucet, answered once the node accepted it (202). " +
    "The deposit is then detected and confirmed, with its webhooks, as a customer's would be. 404 on " +
    "any network other than the devnet.",
  params: idParams,
  body: z.object({ amount: simulatePaymentBodyAmount }),
  response: {
    202: z.object({
      deposit_address_id: z.string(),
      tx_hash: z.string(),
      amount: z.string(),
      from_address: z.string(),
      to_address: z.string(),
      chain: z.enum(CHAIN_IDS),
      currency: z.enum(CURRENCIES),
      network: z.literal("devnet"),
    }),
    400: errorReply,
    404: errorReply,
    503: errorReply,
    ...merchantErrors,
  },
};
