/**
 * The outgoing webhooks (SPEC.md 6) for the OpenAPI document's `webhooks` section: the payload, its
 * headers and an example per event. The payload type itself lives in src/webhooks/enqueue-webhook.ts;
 * `satisfies` below keeps the two in step.
 */
import { z } from "zod";
import { ORDER_STATUSES } from "../../db/schema.js";
import { OUTCOME_EVENTS, type OutcomeEvent, type WebhookPayload } from "../../webhooks/enqueue-webhook.js";

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
  currency: z.literal("USDT"),
  network: z.string().meta({ description: "mainnet, nile, shasta or devnet" }),
  tx_hash: z.string().nullable(),
  from_address: z.string().nullable().meta({ description: "the payer's address, null when unknown" }),
  to_address: z.string().meta({ description: "the order's deposit address" }),
  status: z.enum(ORDER_STATUSES).meta({ description: "the order's status when the webhook was built" }),
  timestamp: z.string().meta({ format: "date-time" }),
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

/** OpenAPI 3.1 `webhooks`: one POST per outcome event. */
export function webhooksDocument(): Record<string, unknown> {
  const payload = z.toJSONSchema(webhookPayloadSchema, { target: "draft-2020-12" }) as Record<
    string,
    unknown
  >;
  delete payload.$schema;
  return Object.fromEntries(
    OUTCOME_EVENTS.map((event) => [
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
  );
}
