/** Schema of the sandbox route POST /api/v1/payments/:id/simulate (devnet only). */
import { z } from "zod";
import { parseAmount } from "../../money.js";
import { errorReply } from "./error-reply.js";

const AMOUNT_MESSAGE = 'must be a decimal string greater than 0 with at most 6 decimals, e.g. "10.5"';

export const simulatePaymentBody = z
  .object({
    amount: z
      .string({ error: AMOUNT_MESSAGE })
      .refine((value) => (parseAmount(value) ?? 0n) > 0n, AMOUNT_MESSAGE)
      .meta({
        pattern: "^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$",
        example: "9.5",
        description: "USDT to send; default: the order's amount_expected",
      })
      .optional(),
  })
  // A bodiless POST reaches validation as null.
  .nullish();

export const simulatedPaymentReply = z
  .object({
    order_id: z.string(),
    tx_hash: z.string().meta({ description: "the broadcast TRON transaction id (64 hex characters)" }),
    amount: z.string().meta({ example: "10.500000" }),
    from_address: z.string().meta({ description: "the devnet faucet" }),
    to_address: z.string().meta({ description: "the order's deposit address" }),
    network: z.literal("devnet"),
  })
  .meta({
    example: {
      order_id: "0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15",
      tx_hash: "4f7e6f8b3a0c5d1e2b9a8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f",
      amount: "10.500000",
      from_address: "TYBNgWfhGuNzdLtjKtxXTfskAhTbMcqbaG",
      to_address: "TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA",
      network: "devnet",
    },
  });

export const simulatePaymentSchema = {
  tags: ["merchant", "sandbox"],
  summary: "Pay one of your orders from the devnet faucet (sandbox; devnet deployments only)",
  description:
    "Sends a real signed USDT transfer from the devnet faucet to the order's address and answers " +
    "as soon as the node accepted it (202). The order then moves through `detected` and " +
    "`confirmed` (or `underpaid`/`overpaid` with another `amount`) and the webhooks follow, as " +
    "for a customer's payment. Answers 404 on any network other than the devnet.",
  security: [{ apiKey: [] }],
  params: z.object({ id: z.string().max(100) }),
  body: simulatePaymentBody,
  response: {
    202: simulatedPaymentReply,
    400: errorReply,
    401: errorReply,
    403: errorReply,
    404: errorReply,
    429: errorReply,
    503: errorReply,
  },
};

export const adminSimulatePaymentSchema = {
  tags: ["admin", "sandbox"],
  summary: "Pay any order from the devnet faucet (the dashboard's Simulate payment; devnet only)",
  description: simulatePaymentSchema.description,
  security: [{ adminCookie: [] }],
  params: simulatePaymentSchema.params,
  body: simulatePaymentBody,
  response: {
    202: simulatedPaymentReply,
    400: errorReply,
    401: errorReply,
    404: errorReply,
    503: errorReply,
  },
};
