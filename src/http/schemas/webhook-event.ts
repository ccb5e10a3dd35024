/**
 * The outgoing webhooks (SPEC.md 6) for the OpenAPI document's `webhooks` section: the payload, its
 * headers and an example per event. The payload type itself lives in src/webhooks/enqueue-webhook.ts;
 * `satisfies` below keeps the two in step.
 */
import { CHAIN_IDS, CURRENCIES } from "../../chains/chain-types.js";
import { z } from "zod";
import { ORDER_STATUSES } from "../../orders/order-statuses.js";
import { OUTCOME_EVENTS, type OutcomeEvent, type WebhookPayload } from "../../webhooks/enqueue-webhook.js";
import {
  DEPOSIT_EVENTS,
  type DepositEvent,
  type DepositWebhookPayload,
  PAYOUT_WEBHOOK_EVENTS,
  type PayoutWebhookEvent,
  type PayoutWebhookPayload,
} from "@stablegate/sdk/webhook-payload";

const STATUS_OF: Record<OutcomeEvent, string> = {
  "payment.confirmed": "confirmed",
  "payment.underpaid": "underpaid",
  "payment.overpaid": "overpaid",
};

const TRIGGER: Record<OutcomeEvent, string> = {
  "payment.confirmed": "the confirmations are reached and amount_received equals amount_expected",
  "payment.underpaid": "the confirmations are reached and amount_received is less than amount_expected",
  "payment.overpaid": "the confirmations are reached and amount_received is greater than amount_expected",
};

export const webhookPayloadSchema = z.object({
  event: z.enum(OUTCOME_EVENTS),
  order_id: z.string().meta({ format: "uuid" }),
  external_id: z.string().meta({ description: "the merchant's own order id" }),
  amount_expected: z.string().meta({ example: "10.500000" }),
  amount_received: z.string().meta({ example: "10.500000" }),
  currency: z.enum(CURRENCIES),
  chain: z.enum(CHAIN_IDS).meta({ description: "the chain the order was paid on" }),
  network: z.string().meta({ description: "the chain's network: mainnet, a testnet's name, or devnet" }),
  tx_hash: z.string().nullable(),
  from_address: z.string().nullable().meta({ description: "the payer's address, null when unknown" }),
  to_address: z.string().meta({ description: "the order's deposit address" }),
  status: z.enum(ORDER_STATUSES).meta({ description: "the order's status when the webhook was built" }),
  timestamp: z.string().meta({ format: "date-time" }),
  resolution: z.literal("manual").optional().meta({
    description:
      'present only on an outcome an operator set by hand (accepting an underpaid payment, DESIGN.md 13): "manual"',
  }),
});

function example(event: OutcomeEvent): WebhookPayload {
  const received = {
    "payment.confirmed": "10.500000",
    "payment.underpaid": "9.000000",
    "payment.overpaid": "12.000000",
  };
  return {
    event,
    order_id: "0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15",
    external_id: "order-1042",
    amount_expected: "10.500000",
    amount_received: received[event],
    currency: "USDT",
    chain: "tron",
    network: "mainnet",
    tx_hash: "4f7e6f8b3a0c5d1e2b9a8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f",
    from_address: "TYBNgWfhGuNzdLtjKtxXTfskAhTbMcqbaG",
    to_address: "TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA",
    status: STATUS_OF[event],
    timestamp: "2026-11-22T06:03:38.000Z",
  };
}

const headers = [
  {
    name: "X-Signature",
    in: "header",
    required: true,
    description:
      "sha256=<lowercase hex HMAC-SHA256 of the exact raw body, keyed with the merchant's webhook_secret>. " +
      "Verify over the raw bytes, in constant time (the SDK's verifyWebhook does).",
    schema: { type: "string", pattern: "^sha256=[0-9a-f]{64}$" },
  },
  {
    name: "X-Idempotency-Key",
    in: "header",
    required: true,
    description:
      "evt_<order_id>_<event>_<ts> (ts: Unix milliseconds of the outcome), identical on every retry: " +
      "dedupe on it and answer 2xx at once for a key already processed.",
    schema: { type: "string" },
    example: "evt_0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15_payment.confirmed_1795327418000",
  },
  {
    name: "X-Timestamp",
    in: "header",
    required: true,
    description: "Unix time in seconds of this delivery attempt (reject stale ones to limit replays).",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
];

/** Deposit webhooks of static addresses (DESIGN.md 15), sent to the address's callback_url. */
export const depositWebhookPayloadSchema = z.object({
  event: z.enum(DEPOSIT_EVENTS),
  deposit_id: z.string().meta({ format: "uuid" }),
  deposit_address_id: z.string().meta({ format: "uuid" }),
  customer_ref: z.string().meta({ description: "the merchant's own reference of the customer" }),
  amount: z.string().meta({ example: "25.000000" }),
  currency: z.enum(CURRENCIES).meta({ description: "the token the deposit was paid in" }),
  chain: z.enum(CHAIN_IDS).meta({
    description: "the chain the deposit was paid on (one EVM address is paid on every enabled EVM chain)",
  }),
  network: z.string().meta({ description: "the chain's network: mainnet, a testnet's name, or devnet" }),
  tx_hash: z.string(),
  from_address: z.string(),
  to_address: z
    .string()
    .meta({ description: "the static deposit address (EIP-55 checksummed on EVM chains)" }),
  status: z.enum(["detected", "confirmed"]),
  confirmations: z.number().int(),
  below_minimum: z.boolean().meta({ description: "amount < DEPOSIT_MIN_USDT; credited all the same" }),
  address_status: z.enum(["active", "disabled"]).meta({
    description: "disabled: the deposit reached an address the merchant had disabled (still credited)",
  }),
  timestamp: z.string().meta({ format: "date-time" }),
});

const DEPOSIT_TRIGGER: Record<DepositEvent, string> = {
  "deposit.detected":
    "a token transfer to a static address was seen in a block (only for addresses created with notify_detected: true; not final, a fork may still drop it)",
  "deposit.confirmed":
    "a deposit reached the confirmations and its chain's final chain (TRON's solidified chain, an EVM chain's finality): final, credit it",
};

function depositExample(event: DepositEvent): DepositWebhookPayload {
  return {
    event,
    deposit_id: "019a9c3e-5b1d-7c2e-8f3a-4b5c6d7e8f90",
    deposit_address_id: "019a9c3e-1a2b-7c3d-8e4f-5a6b7c8d9e0f",
    customer_ref: "player-42",
    amount: "25.000000",
    currency: "USDT",
    chain: "tron",
    network: "mainnet",
    tx_hash: "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b",
    from_address: "TYBNgWfhGuNzdLtjKtxXTfskAhTbMcqbaG",
    to_address: "TXvRyjomvtNWSKvNouTvAedRGD4w9RXLZD",
    status: event === "deposit.confirmed" ? "confirmed" : "detected",
    confirmations: event === "deposit.confirmed" ? 19 : 1,
    below_minimum: false,
    address_status: "active",
    timestamp: "2026-11-22T06:03:38.000Z",
  };
}

/** Webhooks of refunds and payouts (DESIGN.md 14), sent to the callback_url given at creation. */
export const payoutWebhookPayloadSchema = z.object({
  event: z.enum(PAYOUT_WEBHOOK_EVENTS),
  payout_id: z.string().meta({ format: "uuid" }),
  kind: z.enum(["refund", "payout"]),
  order_id: z
    .string()
    .nullable()
    .meta({ description: "the refunded order; null for payouts and refunds of a stray transfer" }),
  external_id: z
    .string()
    .nullable()
    .meta({ description: "the merchant's own id of a payout; null for refunds" }),
  amount: z.string().meta({ example: "25.000000" }),
  currency: z.enum(CURRENCIES),
  chain: z.enum(CHAIN_IDS).meta({ description: "the chain it is paid on" }),
  network: z.string().meta({ description: "the chain's network: mainnet, a testnet's name, or devnet" }),
  address: z
    .string()
    .nullable()
    .meta({ description: "the recipient's address on the chain (EIP-55 checksummed on EVM chains)" }),
  status: z.enum(["completed", "failed"]),
  tx_hash: z
    .string()
    .nullable()
    .meta({ description: "completed: the transaction that paid it; failed: the last one tried, if any" }),
  timestamp: z.string().meta({ format: "date-time" }),
});

const PAYOUT_TRIGGER: Record<PayoutWebhookEvent, string> = {
  "refund.completed": "the refund's transfer is in a solidified block: the payer has the money",
  "refund.failed":
    "the refund's transfer failed on chain (REVERT, out of energy); its reservation is released",
  "payout.completed": "the payout's transfer is in a solidified block: the recipient has the money",
  "payout.failed":
    "the payout's transfer failed on chain (REVERT, out of energy); its reservation is released",
};

function payoutExample(event: PayoutWebhookEvent): PayoutWebhookPayload {
  const refund = event.startsWith("refund.");
  const completed = event.endsWith(".completed");
  return {
    event,
    payout_id: "019a9c3e-7d2f-7a1b-9c3d-4e5f6a7b8c9d",
    kind: refund ? "refund" : "payout",
    order_id: refund ? "0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15" : null,
    external_id: refund ? null : "affiliate-2026-11-42",
    amount: "25.000000",
    currency: "USDT",
    chain: "tron",
    network: "mainnet",
    address: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
    status: completed ? "completed" : "failed",
    tx_hash: "7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d",
    timestamp: "2026-11-22T06:03:38.000Z",
  };
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

/** OpenAPI 3.1 `webhooks`: one POST per outcome event, per deposit event and per payout event. */
export function webhooksDocument(): Record<string, unknown> {
  const payload = jsonSchema(webhookPayloadSchema);
  const depositPayload = jsonSchema(depositWebhookPayloadSchema);
  const depositHeaders = headers.map((h) =>
    h.name === "X-Idempotency-Key"
      ? {
          ...h,
          description:
            "evt_<deposit_id>_<event>_<ts> (ts: Unix milliseconds of the detection or confirmation), identical on every retry",
          example: "evt_019a9c3e-5b1d-7c2e-8f3a-4b5c6d7e8f90_deposit.confirmed_1795327418000",
        }
      : h,
  );
  const depositWebhooks = DEPOSIT_EVENTS.map((event) => [
    event,
    {
      post: {
        operationId: `webhook_${event.replace(".", "_")}`,
        summary: `${event}: ${DEPOSIT_TRIGGER[event]}`,
        description:
          "POSTed to the static deposit address's callback_url, signed, timed out and retried exactly " +
          "as the payment webhooks (10 attempts, 2^n s backoff capped at 1 h); at least once: dedupe " +
          "on X-Idempotency-Key. A deposit to a disabled address, or below DEPOSIT_MIN_USDT, is " +
          "reported all the same, flagged.",
        tags: ["webhooks"],
        security: [],
        parameters: depositHeaders,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                ...depositPayload,
                properties: {
                  ...(depositPayload.properties as Record<string, unknown>),
                  event: { type: "string", const: event },
                },
              },
              example: depositExample(event),
            },
          },
        },
        responses: { "200": { description: "Received (any 2xx ends the retries)" } },
      },
    },
  ]);
  const payoutPayload = jsonSchema(payoutWebhookPayloadSchema);
  const payoutHeaders = headers.map((h) =>
    h.name === "X-Idempotency-Key"
      ? {
          ...h,
          description:
            "evt_<payout_id>_<event>_<ts> (ts: Unix milliseconds of the payout's completion or failure), identical on every retry",
          example: "evt_019a9c3e-7d2f-7a1b-9c3d-4e5f6a7b8c9d_payout.completed_1795327418000",
        }
      : h,
  );
  const payoutWebhooks = PAYOUT_WEBHOOK_EVENTS.map((event) => [
    event,
    {
      post: {
        operationId: `webhook_${event.replace(".", "_")}`,
        summary: `${event}: ${PAYOUT_TRIGGER[event]}`,
        description:
          "POSTed only to the callback_url given when the refund or payout was created (none given: " +
          "no webhook), signed, timed out and retried exactly as the payment webhooks (10 attempts, " +
          "2^n s backoff capped at 1 h); at least once: dedupe on X-Idempotency-Key.",
        tags: ["webhooks"],
        security: [],
        parameters: payoutHeaders,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                ...payoutPayload,
                properties: {
                  ...(payoutPayload.properties as Record<string, unknown>),
                  event: { type: "string", const: event },
                },
              },
              example: payoutExample(event),
            },
          },
        },
        responses: { "200": { description: "Received (any 2xx ends the retries)" } },
      },
    },
  ]);
  // The payment events first: they are what every integration handles.
  return Object.fromEntries([
    ...OUTCOME_EVENTS.map((event) => [
      event,
      {
        post: {
          operationId: `webhook_${event.replace(".", "_")}`,
          summary: `${event}: ${TRIGGER[event]}`,
          description:
            "POSTed to the order's callback_url (Content-Type: application/json), 10 s timeout per " +
            "attempt, retried on non-2xx, timeout or network error with 2^n s backoff (capped at 1 h), " +
            "at most 10 attempts; delivery is at least once.",
          tags: ["webhooks"],
          // Stablegate signs the request (X-Signature); the receiver needs no credential of ours.
          security: [],
          parameters: headers,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  ...payload,
                  properties: {
                    ...(payload.properties as Record<string, unknown>),
                    event: { type: "string", const: event },
                  },
                },
                example: example(event),
              },
            },
          },
          responses: {
            "200": { description: "Received (any 2xx ends the retries)" },
          },
        },
      },
    ]),
    ...depositWebhooks,
    ...payoutWebhooks,
  ]);
}
