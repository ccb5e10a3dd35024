import { z } from "zod";
import { errorReply } from "./error-reply.js";
import { merchantBalanceReply } from "./merchant-fields.js";

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
    }),
    401: errorReply,
    403: errorReply,
  },
};
