import { z } from "zod";
import { errorReply } from "./error-reply.js";
import { merchantName, webhookSecret } from "./merchant-fields.js";

/** webhookSecret is the deprecated camelCase alias (SPEC.md 9); snake_case wins when both are sent. */
export const createMerchantBody = z
  .object({
    name: merchantName(),
    webhook_secret: webhookSecret().optional(),
    webhookSecret: webhookSecret().optional().meta({ deprecated: true }),
  })
  .superRefine((body, check) => {
    if (body.webhook_secret === undefined && body.webhookSecret === undefined) {
      check.addIssue({ code: "custom", path: ["webhook_secret"], message: "is required" });
    }
  });

export const createMerchantSchema = {
  tags: ["admin"],
  security: [{ adminCookie: [] }],
  summary: "Create a merchant; the API key and webhook secret are returned only here",
  body: createMerchantBody,
  response: {
    201: z.object({
      id: z.string(),
      name: z.string(),
      api_key: z.string(),
      api_key_prefix: z.string(),
      webhook_secret: z.string(),
      is_active: z.boolean(),
      created_at: z.string(),
    }),
    400: errorReply,
    401: errorReply,
  },
};
