import { z } from "zod";
import { errorReply } from "./error-reply.js";

/**
 * Optional one-shot override of the callback URL (callbackUrl is the deprecated alias; snake_case
 * wins). The schema documents the shape; the route validates with attachValidation so every body
 * problem answers 400 VALIDATION_ERROR as SPEC.md 4.4 lists for this endpoint.
 */
export const retryWebhookBody = z
  .object({
    callback_url: z
      .string()
      .meta({ format: "uri", description: "http(s) URL used for this retry only" })
      .optional(),
    callbackUrl: z.string().optional().meta({ deprecated: true }),
  })
  .nullish();

export const retryWebhookSchema = {
  tags: ["admin"],
  summary: "Re-send the order's latest outcome webhook with a fresh budget of 10 attempts",
  params: z.object({ id: z.string().max(100) }),
  body: retryWebhookBody,
  response: {
    200: z.object({ ok: z.literal(true) }),
    400: errorReply,
    401: errorReply,
    404: errorReply,
    409: errorReply,
  },
};
