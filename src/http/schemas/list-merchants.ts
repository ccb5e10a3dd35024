import { z } from "zod";
import { merchantSummary } from "./merchant-fields.js";
import { errorReply } from "./error-reply.js";

export const listMerchantsSchema = {
  tags: ["admin"],
  security: [{ adminCookie: [] }],
  summary: "List merchants, newest first",
  response: {
    200: z.object({ data: z.array(merchantSummary.extend({ order_count: z.number().int() })) }),
    401: errorReply,
  },
};
