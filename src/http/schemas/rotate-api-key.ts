import { z } from "zod";
import { errorReply } from "./error-reply.js";
import { merchantIdParams } from "./merchant-fields.js";

export const rotateApiKeySchema = {
  tags: ["admin"],
  security: [{ adminCookie: [] }],
  summary: "Replace a merchant's API key; the old key stops working at once",
  description:
    "Bodiless, or `{totp_code}`: an operator with two-factor authentication confirms with a fresh code " +
    "(401 TOTP_REQUIRED without it, 401 TOTP_INVALID when wrong or reused).",
  params: merchantIdParams,
  // A bodiless POST reaches validation as null.
  body: z.object({ totp_code: z.string().min(1).max(32).optional() }).nullish(),
  response: {
    200: z.object({ id: z.string(), name: z.string(), api_key: z.string(), api_key_prefix: z.string() }),
    400: errorReply,
    401: errorReply,
    403: errorReply,
    404: errorReply,
  },
};
