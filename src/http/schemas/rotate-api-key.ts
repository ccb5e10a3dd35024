import { z } from "zod";
import { errorReply } from "./error-reply.js";
import { secondFactorFields } from "./second-factor.js";
import { merchantIdParams } from "./merchant-fields.js";

export const rotateApiKeySchema = {
  tags: ["admin"],
  security: [{ adminCookie: [] }],
  summary: "Replace a merchant's API key; the old key stops working at once",
  description:
    "Bodiless, or `{totp_code}` or `{passkey}`: an operator with a second factor confirms with a fresh one " +
    "(401 TOTP_REQUIRED without it, 401 TOTP_INVALID / PASSKEY_INVALID when wrong or reused, 429 RATE_LIMITED " +
    "while the operator's second factor is locked).",
  params: merchantIdParams,
  // A bodiless POST reaches validation as null.
  body: z.object(secondFactorFields).nullish(),
  response: {
    200: z.object({ id: z.string(), name: z.string(), api_key: z.string(), api_key_prefix: z.string() }),
    400: errorReply,
    401: errorReply,
    403: errorReply,
    404: errorReply,
    429: errorReply,
  },
};
