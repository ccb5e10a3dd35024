import { z } from "zod";
import { CHAIN_IDS, CURRENCIES } from "../../chains/chain-types.js";
import { errorReply } from "./error-reply.js";
import { incidentReply } from "./get-merchant-detail.js";
import { adminDepositReply } from "./deposit-addresses.js";
import { strayTransferReply } from "./resolutions.js";
import { familyPool } from "./admin-wallet.js";

const statsBlock = z.object({
  order_count: z.number().int(),
  completed_count: z.number().int(),
  total_received: z.string(),
  success_rate: z.string().meta({ description: "completed / order_count x 100 (DESIGN.md 8)" }),
  final_count: z.number().int().meta({
    description:
      "orders with a final outcome: confirmed, underpaid or overpaid (webhook delivered or not), or expired",
  }),
  paid_in_full_count: z
    .number()
    .int()
    .meta({ description: "final orders that received at least the expected amount" }),
  expired_count: z.number().int().meta({ description: "final orders that expired unpaid" }),
  paid_in_full_rate: z.string().meta({
    description: "paid_in_full_count / final_count x 100, two decimals; the console's success rate",
  }),
});

const depositStatsBlock = z.object({ deposit_count: z.number().int(), total_received: z.string() });

export const addressPoolReply = z.object({
  total: z.number().int(),
  free: z.number().int(),
  allocated: z.number().int(),
});

/** The chain and currency filters of the stats reads (a bad value: 400 INVALID_QUERY). */
export const statsQuery = z.object({
  chain: z
    .enum(CHAIN_IDS, { error: `must be one of ${CHAIN_IDS.join(", ")}` })
    .optional()
    .meta({ description: "only orders (and, in /admin/stats, deposits) paid on this chain" }),
  currency: z
    .enum(CURRENCIES, { error: `must be one of ${CURRENCIES.join(", ")}` })
    .optional()
    .meta({ description: "only orders (and, in /admin/stats, deposits) in this currency" }),
});

export const getStatsSchema = {
  tags: ["admin"],
  summary: "Order figures for today, the last 7 UTC days and all time, and the address pool",
  querystring: statsQuery,
  response: {
    200: z.object({
      currencies: z.array(z.string()).meta({
        description:
          "the currencies whose amounts today, week and total add up in total_received (more than one: a sum across currencies)",
      }),
      by_chain_currency: z
        .array(
          z.object({
            chain: z.string(),
            currency: z.string(),
            today: statsBlock,
            week: statsBlock,
            total: statsBlock,
          }),
        )
        .meta({ description: "the same figures for each chain and currency with orders or enabled" }),
      today: statsBlock,
      week: statsBlock,
      total: statsBlock.extend({ merchant_count: z.number().int() }),
      address_pool: addressPoolReply,
      address_pools: z
        .array(familyPool)
        .meta({ description: "each chain family's pool; address_pool is their sum" }),
      stray_transfers: z.object({
        count: z.number().int(),
        amount: z.string(),
        unresolved_count: z.number().int(),
        unresolved_amount: z.string(),
        dust_addresses: z.number().int().meta({
          description:
            "addresses whose stray balance is below SWEEP_MIN_USDT: not swept, and kept out of the pool until it is",
        }),
        dust_amount: z.string().meta({ description: "the USDT those addresses hold (6 decimals)" }),
      }),
      deposits: z
        .object({
          today: depositStatsBlock,
          week: depositStatsBlock,
          total: depositStatsBlock,
          currencies: z.array(z.string()).meta({
            description:
              "the currencies of the confirmed deposits whose amounts today, week and total add up (more than one: a sum across currencies)",
          }),
          by_chain_currency: z
            .array(
              z.object({
                chain: z.string(),
                currency: z.string(),
                today: depositStatsBlock,
                week: depositStatsBlock,
                total: depositStatsBlock,
              }),
            )
            .meta({ description: "the same figures for each chain and currency with confirmed deposits" }),
        })
        .meta({ description: "confirmed deposits to static addresses, by UTC day of detection" }),
    }),
    400: errorReply,
    401: errorReply,
  },
};

export const getDailyStatsSchema = {
  tags: ["admin"],
  summary: "Received amount per UTC day for the last 7 days, oldest first",
  querystring: statsQuery,
  response: {
    200: z.array(z.object({ date: z.string(), total_received: z.string() })),
    400: errorReply,
    401: errorReply,
  },
};

const failingWebhookReply = z.object({
  delivery_id: z.string(),
  event: z.string(),
  subject: z.enum(["order", "payout", "refund"]),
  subject_id: z.string(),
  external_id: z.string().nullable(),
  merchant_id: z.string(),
  merchant_name: z.string(),
  status: z.enum(["pending", "failed"]).meta({
    description:
      "pending: the next retry is at next_attempt_at; failed: every attempt failed, no retry is left",
  }),
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  last_error: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  next_attempt_at: z.string().nullable(),
  updated_at: z.string(),
  link: z.string().meta({ description: "path of the order's or payout's console page" }),
});

export const listIncidentsSchema = {
  tags: ["admin"],
  summary:
    "The 10 most recent webhook_failed and sweep_failed events; stray_transfers: the 10 most recent unresolved stray transfers (incident stray_transfer); deposits_to_disabled_addresses: the 10 most recent deposits to disabled static addresses (incident deposit_to_disabled_address); failing_webhooks: webhook deliveries whose last attempt failed",
  response: {
    200: z.object({
      data: z.array(incidentReply),
      stray_transfers: z.array(strayTransferReply),
      deposits_to_disabled_addresses: z.array(adminDepositReply).meta({
        description:
          "deposits to disabled static addresses not dropped by a fork, newest first (credited and reported all the same)",
      }),
      failing_webhooks: z.array(failingWebhookReply).meta({
        description:
          "order and payout webhook deliveries whose last attempt failed (retrying or given up), the 20 most recently changed first",
      }),
    }),
    401: errorReply,
  },
};
