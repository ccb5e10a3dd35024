import { z } from "zod";
import { errorReply } from "./error-reply.js";
import { merchantIdParams } from "./merchant-fields.js";

export const rotateApiKeySchema = {
  tags: ["admin"],
  security: [{ adminCookie: [] }],
  summary: "Replace a merchant's API key; the old key stops working at once",
  params: merchantIdParams,
  response: {
    200: z.object({ id: z.string(), name: z.string(), api_key: z.string(), api_key_prefix: z.string() }),
    401: errorReply,
    404: errorReply,
  },
};
