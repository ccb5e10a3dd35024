import { z } from "zod";
import { errorReply } from "./error-reply.js";
import { secondFactorFields } from "./second-factor.js";
import { merchantIdParams, merchantName, merchantSummary, webhookSecret } from "./merchant-fields.js";

/**
 * isActive and webhookSecret are deprecated camelCase aliases (SPEC.md 9); snake_case wins when both
 * are sent. Unknown keys are ignored. A missing body (or JSON null) is an empty update
 * (EMPTY_UPDATE), like {}: it carries no field to change.
 */
export const updateMerchantBody = z
  .object({
    name: merchantName().optional(),
    is_active: z.boolean().optional(),
    isActive: z.boolean().optional().meta({ deprecated: true }),
    webhook_secret: webhookSecret().optional(),
    webhookSecret: webhookSecret().optional().meta({ deprecated: true }),
    // Enabling the house account is a step-up action (DESIGN.md 12).
    ...secondFactorFields,
  })
  .nullish();

export const updateMerchantSchema = {
  tags: ["admin"],
  security: [{ adminCookie: [] }],
  summary: "Change a merchant's name, status or webhook secret",
  params: merchantIdParams,
  body: updateMerchantBody,
  response: {
    200: merchantSummary,
    400: errorReply,
    401: errorReply,
    403: errorReply,
    404: errorReply,
    429: errorReply,
  },
};
