/** Schemas of the resolution routes (DESIGN.md 13): cancel, accept, attach, stray transfers. */
import { z } from "zod";
import { REASON_MAX } from "../../orders/resolution-actor.js";
import { adminOrderDetailReply } from "./admin-orders.js";
import { errorReply } from "./error-reply.js";
import { isoTimestamp } from "./merchant-fields.js";
import { orderListQueryFields, paginationReply } from "./order-query.js";
import { getPaymentSchema } from "./payments.js";

/** Every resolution carries a reason: missing or blank answers 400 INVALID_BODY. */
export const reasonField = z
  .string()
  .min(1)
  .max(REASON_MAX)
  .refine((s) => s.trim().length > 0, { message: "must not be blank" })
  .meta({ description: "why (kept in the order's events and the audit log)" });

const idParams = z.object({ id: z.string().max(100) });
const adminErrors = { 400: errorReply, 401: errorReply, 403: errorReply, 404: errorReply, 409: errorReply };

export const cancelBody = z.object({ reason: reasonField });

export const cancelPaymentSchema = {
  tags: ["merchant"],
  summary: "Cancel a pending order (no webhook; a payment that still arrives is a late payment)",
  security: [{ apiKey: [] }],
  params: idParams,
  body: cancelBody,
  response: {
    200: getPaymentSchema.response[200],
    400: errorReply,
    401: errorReply,
    403: errorReply,
    404: errorReply,
    409: errorReply,
    429: errorReply,
  },
};

export const adminCancelOrderSchema = {
  tags: ["admin"],
  summary: "Cancel a pending order (the merchant API's cancel, for operators)",
  params: idParams,
  body: cancelBody,
  response: { 200: adminOrderDetailReply, ...adminErrors },
};

export const resolveOrderSchema = {
  tags: ["admin"],
  summary:
    'Resolve an order by hand: "accept" makes an underpaid outcome confirmed at the amount received, with a new payment.confirmed webhook ("resolution": "manual")',
  params: idParams,
  body: z.object({ action: z.literal("accept"), reason: reasonField }),
  response: { 200: adminOrderDetailReply, ...adminErrors },
};

export const attachTransferSchema = {
  tags: ["admin"],
  summary: "Credit a recorded, confirmed stray transfer to this order as if it had reached its address",
  params: idParams,
  body: z.object({
    tx_hash: z.string().regex(/^(0x)?[0-9a-fA-F]{64}$/, "must be a 64-hex-digit transaction hash"),
    log_index: z.number().int().min(0).max(10_000).optional(),
    reason: reasonField,
  }),
  response: { 200: adminOrderDetailReply, ...adminErrors, 503: errorReply },
};

export const strayTransferReply = z.object({
  id: z.string(),
  tx_hash: z.string(),
  log_index: z.number().int(),
  address: z.string(),
  from_address: z.string(),
  amount: z.string(),
  chain: z.string().meta({ description: "the chain it was seen on" }),
  remainder: z.string().meta({
    description:
      "what an 18-decimal token carried below one micro-unit, as a decimal with the token's decimals (0.000000500000000000); never credited, kept on the record; 0.000000 for a 6-decimal token",
  }),
  block_number: z.number().int(),
  block_timestamp: isoTimestamp,
  status: z.enum(["seen", "confirmed"]),
  confirmations: z.number().int(),
  previous_order_id: z.string().nullable(),
  resolution: z.enum(["attached", "dismissed", "refunded"]).nullable(),
  order_id: z.string().nullable(),
  resolution_reason: z.string().nullable(),
  resolved_by: z.object({ kind: z.string(), id: z.string().optional(), label: z.string() }).nullable(),
  resolved_at: isoTimestamp.nullable(),
  sweep: z.object({
    status: z.string(),
    sweep_tx_hash: z.string().nullable(),
    swept_at: isoTimestamp.nullable(),
  }),
  explorer_url: z.string().nullable(),
  created_at: isoTimestamp,
  confirmed_at: isoTimestamp.nullable(),
});

export const listStrayTransfersSchema = {
  tags: ["admin"],
  summary: "Transfers to our addresses that no order held: unresolved first, newest first",
  querystring: z.object({
    page: orderListQueryFields.page,
    limit: orderListQueryFields.limit,
    state: z.enum(["unresolved", "resolved"]).optional(),
    address: z.string().min(1).max(64).optional(),
  }),
  response: {
    200: z.object({ data: z.array(strayTransferReply), pagination: paginationReply }),
    400: errorReply,
    401: errorReply,
    403: errorReply,
  },
};

export const getStrayTransferSchema = {
  tags: ["admin"],
  summary: "One stray transfer with its address's history (strays, sweep, orders)",
  params: idParams,
  response: {
    200: z.object({
      stray: strayTransferReply,
      address: z.object({
        address: z.string(),
        status: z.string(),
        order_id: z.string().nullable(),
        last_order_id: z.string().nullable(),
        strays: z.array(strayTransferReply),
        settlement: z
          .object({
            status: z.string(),
            round: z.number().int(),
            amount: z.string().nullable(),
            fee_trx: z.string().nullable(),
            sweep_tx_hash: z.string().nullable(),
            swept_at: isoTimestamp.nullable(),
            attempts: z.number().int(),
            last_error: z.string().nullable(),
            explorer_url: z.string().nullable(),
          })
          .nullable(),
      }),
    }),
    401: errorReply,
    403: errorReply,
    404: errorReply,
  },
};

export const dismissStrayTransferSchema = {
  tags: ["admin"],
  summary: "Close a stray transfer with a reason (its balance is swept all the same)",
  params: idParams,
  body: z.object({ reason: reasonField }),
  response: { 200: strayTransferReply, ...adminErrors },
};
