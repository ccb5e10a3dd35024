import { z } from "zod";
import { errorReply } from "./error-reply.js";

const security = [{ adminCookie: [] }];

export const searchHitReply = z.object({
  kind: z.enum(["order", "payout", "refund", "stray_transfer"]),
  id: z.string(),
  matched: z
    .enum(["id", "external_id", "address", "tx_hash"])
    .meta({ description: "which key the query equals" }),
  status: z.string(),
  amount: z
    .string()
    .meta({ description: "expected amount of an order; amount of a payout, refund or stray (6 decimals)" }),
  merchant_id: z.string().nullable(),
  merchant_name: z.string().nullable(),
  external_id: z.string().nullable(),
  created_at: z.string(),
  link: z.string().meta({ description: "path of the hit's console page" }),
});

export const adminSearchSchema = {
  tags: ["admin"],
  security,
  summary:
    "Find orders (id, external id, deposit address, hash of a transfer into it), payouts and refunds (id, external id, transaction hash) and stray transfers (id, transaction hash) by an exact key",
  querystring: z.object({
    q: z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters"),
  }),
  response: {
    200: z.object({ query: z.string(), data: z.array(searchHitReply) }),
    400: errorReply,
    401: errorReply,
  },
};
