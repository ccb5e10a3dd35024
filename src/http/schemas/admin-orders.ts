import { ORDER_ACTIONS } from "../../orders/order-actions.js";
/** Schemas of the admin order routes (SPEC.md 4.4, 4.5; DESIGN.md 8). */
import { CHAIN_IDS, CURRENCIES } from "../../chains/chain-types.js";
import { z } from "zod";
import { ORDER_STATUSES } from "../../orders/order-statuses.js";
import { isUuid } from "../../ids.js";
import { errorReply } from "./error-reply.js";
import { adminOrderReply } from "./get-merchant-detail.js";
import { isoTimestamp } from "./merchant-fields.js";
import { checkRange, orderListQueryFields, paginationReply } from "./order-query.js";
import { orderEventReply, resolutionReply } from "./payments.js";

/** merchant_id is canonical; merchantId is the deprecated alias and is ignored when both are sent. */
export const adminOrderListQuery = z
  .object({
    ...orderListQueryFields,
    merchant_id: z.string().optional(),
    chain: z
      .enum(CHAIN_IDS, { error: `must be one of ${CHAIN_IDS.join(", ")}` })
      .optional()
      .meta({ description: "only orders paid on this chain" }),
    currency: z
      .enum(CURRENCIES, { error: `must be one of ${CURRENCIES.join(", ")}` })
      .optional()
      .meta({ description: "only orders in this currency" }),
    merchantId: z.string().optional().meta({ deprecated: true }),
  })
  .superRefine((value, ctx) => {
    if (value.merchant_id !== undefined) {
      if (!isUuid(value.merchant_id)) {
        ctx.addIssue({ code: "custom", path: ["merchant_id"], message: "must be a UUID" });
      }
    } else if (value.merchantId !== undefined && !isUuid(value.merchantId)) {
      ctx.addIssue({ code: "custom", path: ["merchantId"], message: "must be a UUID" });
    }
    checkRange(value, ctx);
  });

export const listAdminOrdersSchema = {
  tags: ["admin"],
  summary: "All orders, newest first, filtered and paginated",
  querystring: adminOrderListQuery,
  response: {
    200: z.object({ data: z.array(adminOrderReply), pagination: paginationReply }),
    400: errorReply,
    401: errorReply,
  },
};

const nullableTimestamp = isoTimestamp.nullable();

const transferReply = z.object({
  tx_hash: z.string(),
  log_index: z.number().int(),
  from_address: z.string(),
  to_address: z.string(),
  amount: z.string(),
  block_number: z.number().int(),
  block_timestamp: isoTimestamp,
  status: z.enum(["seen", "confirmed"]),
  confirmations: z.number().int(),
  explorer_url: z.string().nullable(),
});

const webhookDeliveryReply = z.object({
  id: z.string(),
  event: z.string(),
  idempotency_key: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  next_attempt_at: nullableTimestamp,
  delivered_at: nullableTimestamp,
  last_error: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  created_at: isoTimestamp,
  attempt_log: z.array(
    z.object({
      attempt: z.number().int(),
      url: z.string(),
      started_at: isoTimestamp,
      duration_ms: z.number().int(),
      status_code: z.number().int().nullable(),
      error: z.string().nullable(),
      success: z.boolean(),
    }),
  ),
});

export const adminOrderDetailReply = z.object({
  order: z.object({
    id: z.string(),
    external_id: z.string(),
    merchant_id: z.string(),
    merchant_name: z.string(),
    address: z.string(),
    amount_expected: z.string(),
    amount_received: z.string(),
    currency: z.enum(CURRENCIES),
    chain: z.enum(CHAIN_IDS),
    network: z.string(),
    status: z.enum(ORDER_STATUSES),
    tx_hash: z.string().nullable(),
    from_address: z.string().nullable(),
    callback_url: z.string(),
    checkout_url: z.string(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    confirmations: z.number().int(),
    address_explorer_url: z.string().nullable(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    expires_at: isoTimestamp,
    detected_at: nullableTimestamp,
    confirmed_at: nullableTimestamp,
    completed_at: nullableTimestamp,
  }),
  events: z.array(orderEventReply),
  transaction: z
    .object({
      tx_hash: z.string(),
      from_address: z.string(),
      to_address: z.string(),
      amount: z.string(),
      block_number: z.number().int(),
      block_timestamp: isoTimestamp,
      confirmations: z.number().int(),
      explorer_url: z.string().nullable(),
      transfers: z.array(transferReply),
    })
    .nullable(),
  settlement: z
    .object({
      status: z.string(),
      sweep_tx_hash: z.string().nullable(),
      fee_tx_hash: z.string().nullable(),
      amount: z.string().nullable(),
      fee_trx: z.string().nullable(),
      cold_wallet_address: z.string().nullable(),
      attempts: z.number().int(),
      last_error: z.string().nullable(),
      swept_at: nullableTimestamp,
      explorer_url: z.string().nullable(),
    })
    .nullable(),
  meta: z.object({
    network: z.string(),
    usdt_contract: z.string().nullable(),
    tx_explorer_base_url: z.string().nullable(),
    address_explorer_base_url: z.string().nullable(),
    sweep_enabled: z.boolean(),
    sweep_mode: z.string(),
    confirmations_required: z.number().int(),
  }),
  webhooks: z.array(webhookDeliveryReply),
  resolutions: z.array(resolutionReply),
  actions: z
    .array(
      z.object({
        action: z.enum(ORDER_ACTIONS),
        allowed: z.boolean(),
        reason: z.string().nullable().describe("why not, in words; null when allowed"),
      }),
    )
    .describe("what the operator reading it may do now, each with the reason when not"),
});

export const getAdminOrderSchema = {
  tags: ["admin"],
  summary: "One order with events, transaction, settlement, webhooks and system meta",
  params: z.object({ id: z.string().max(100) }),
  response: { 200: adminOrderDetailReply, 401: errorReply, 404: errorReply },
};
