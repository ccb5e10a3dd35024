import { z } from "zod";
import { errorReply } from "./error-reply.js";
import { merchantBalanceReply, merchantBalancesReply } from "./merchant-fields.js";

export const merchantMeSchema = {
  tags: ["merchant"],
  summary: "The merchant this API key belongs to (a key check)",
  security: [{ apiKey: [] }],
  response: {
    200: z.object({
      id: z.string(),
      name: z.string(),
      api_key_prefix: z.string(),
      is_active: z.boolean(),
      balance: merchantBalanceReply,
      balances: merchantBalancesReply,
    }),
    401: errorReply,
    403: errorReply,
  },
};

export const rotateOwnApiKeySchema = {
  tags: ["merchant"],
  summary: "Replace this merchant's API key; the old key stops working at once",
  description:
    "Bodiless and step-free. The new key is shown once, to the caller only: no operator has seen it, so " +
    "an operator who created or rotated the old key may approve refunds and payouts the new key creates.",
  security: [{ apiKey: [] }],
  response: {
    200: z.object({ api_key: z.string(), api_key_prefix: z.string() }),
    401: errorReply,
    403: errorReply,
    429: errorReply,
  },
};
