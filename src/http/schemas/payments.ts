/** Schemas of the merchant payments API (DESIGN.md 3). */
import { z } from "zod";
import { CHAIN_IDS, CURRENCIES } from "../../chains/chain-types.js";
import { ORDER_STATUSES } from "../../orders/order-statuses.js";
import { parseAmount } from "../../money.js";
import { EXPIRES_IN_MAX, EXPIRES_IN_MIN, METADATA_MAX_BYTES } from "../../payments/create-order.js";
import { RESOLUTION_ACTIONS } from "../../orders/order-resolutions.js";
import { errorReply } from "./error-reply.js";
import { isoTimestamp } from "./merchant-fields.js";
import { checkRange, orderListQueryFields, paginationReply } from "./order-query.js";

const AMOUNT_MESSAGE = 'must be a decimal string greater than 0 with at most 6 decimals, e.g. "10.5"';

/** A missing field says so; a present one of the wrong type gets `message`. */
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

export const createPaymentBody = z.object({
  external_id: z
    .string(typeError("must be a string"))
    .min(1, "must be 1 to 128 characters")
    .max(128, "must be 1 to 128 characters"),
  // A string only: a JSON number would already have passed through a float.
  amount: z
    .string(typeError(AMOUNT_MESSAGE))
    .refine((value) => (parseAmount(value) ?? 0n) > 0n, AMOUNT_MESSAGE)
    .meta({ pattern: "^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$", example: "10.5" }),
  currency: z.enum(CURRENCIES, typeError("must be USDT or USDC")),
  // Any string: a chain this deployment does not enable, known or not, is UNSUPPORTED_CURRENCY.
  chain: z
    .string(typeError("must be a string"))
    .min(1, "must be a chain name")
    .max(32, "must be a chain name")
    .optional()
    .meta({
      enum: [...CHAIN_IDS],
      description: "the chain to pay on (default: the deployment's primary chain, tron)",
    }),
  callback_url: z
    .string(typeError("must be a string"))
    .max(2048, "must be at most 2048 characters")
    .refine(isHttpUrl, "must be an absolute http(s) URL")
    .meta({ format: "uri", example: "https://shop.example.com/hooks/stablegate" }),
  expires_in: z
    .number(typeError("must be an integer number of seconds"))
    .int("must be an integer number of seconds")
    .min(EXPIRES_IN_MIN, `must be at least ${EXPIRES_IN_MIN}`)
    .max(EXPIRES_IN_MAX, `must be at most ${EXPIRES_IN_MAX}`)
    .optional(),
  metadata: z
    .record(z.string(), z.unknown(), { error: "must be a JSON object" })
    .refine(
      (value) => Buffer.byteLength(JSON.stringify(value)) <= METADATA_MAX_BYTES,
      `must serialize to at most ${METADATA_MAX_BYTES} bytes`,
    )
    .nullable()
    .optional(),
});

export const merchantOrderReply = z.object({
  id: z.string(),
  external_id: z.string(),
  address: z.string(),
  amount_expected: z.string(),
  amount_received: z.string(),
  currency: z.enum(CURRENCIES),
  chain: z.enum(CHAIN_IDS),
  network: z.string(),
  status: z.enum(ORDER_STATUSES),
  tx_hash: z.string().nullable(),
  callback_url: z.string(),
  checkout_url: z.string(),
  confirmations: z.number().int(),
  created_at: isoTimestamp,
  expires_at: isoTimestamp,
  metadata: z.record(z.string(), z.unknown()).nullable(),
});

export const orderEventReply = z.object({
  id: z.string(),
  event_type: z.string(),
  payload: z.record(z.string(), z.unknown()),
  created_at: isoTimestamp,
});

/** A resolution of the order (DESIGN.md 13): cancel, accept or attach, with its actor and reason. */
export const resolutionReply = z.object({
  event_id: z.string(),
  action: z.enum(RESOLUTION_ACTIONS),
  actor: z.object({ kind: z.string(), id: z.string().optional(), label: z.string() }).nullable(),
  reason: z.string().nullable(),
  tx_hash: z.string().nullable(),
  amount: z.string().nullable(),
  created_at: isoTimestamp,
});

const errors = { 401: errorReply, 403: errorReply, 429: errorReply };

export const createPaymentSchema = {
  tags: ["merchant"],
  summary: "Create a payment order (idempotent on external_id)",
  security: [{ apiKey: [] }],
  body: createPaymentBody,
  response: {
    200: merchantOrderReply.describe("an order with this external_id already exists (replay)"),
    201: merchantOrderReply,
    400: errorReply,
    409: errorReply,
    ...errors,
  },
};

export const getPaymentSchema = {
  tags: ["merchant"],
  summary: "One of the merchant's orders with its events, oldest first",
  security: [{ apiKey: [] }],
  params: z.object({ id: z.string().max(100) }),
  response: {
    200: merchantOrderReply.extend({
      events: z.array(orderEventReply),
      resolutions: z.array(resolutionReply),
    }),
    404: errorReply,
    ...errors,
  },
};

export const listPaymentsSchema = {
  tags: ["merchant"],
  summary: "The merchant's orders, newest first",
  security: [{ apiKey: [] }],
  querystring: z
    .object({
      ...orderListQueryFields,
      external_id: z.string().min(1, "must be 1 to 128 characters").max(128).optional(),
    })
    .superRefine(checkRange),
  response: {
    200: z.object({ data: z.array(merchantOrderReply), pagination: paginationReply }),
    400: errorReply,
    ...errors,
  },
};
