import { z } from "zod";
import { errorReply } from "./error-reply.js";

const chainNode = z.object({
  node: z.string().describe('"node-1", "node-2", ... in TRON_NODE_URL order; node-1 is the preferred node'),
  url: z.string().describe("scheme://host:port only: credentials, path and query are never shown"),
  role: z.enum(["preferred", "fallback"]),
  state: z
    .enum(["healthy", "failing", "lagging"])
    .describe("healthy, or set aside after errors in a row (failing) or a head too far behind (lagging)"),
  active: z.boolean().describe("calls go to this node now"),
  head: z.number().int().nullable(),
  lag: z.number().int().nullable().describe("blocks behind the best node at the last comparison"),
  calls: z.number().int(),
  errors: z.number().int(),
  retry_at: z.string().nullable().describe("when a node set aside is tried again"),
});

export const getChainSchema = {
  tags: ["admin"],
  summary: "Chain watching: the scanner's lag in blocks and the state of every node of TRON_NODE_URL",
  description:
    "What the worker that scans published within the last 15 s (source scanner), else this process's own view " +
    "(source this process). Makes no node call when the scanner published.",
  security: [{ adminCookie: [] }],
  response: {
    200: z.object({
      network: z.string(),
      source: z.enum(["scanner", "this process"]),
      head: z.number().int().nullable(),
      scanned: z.number().int().nullable(),
      scanner_lag_blocks: z.number().int().nullable(),
      scanner_lag_alert_blocks: z.number().int(),
      nodes: z.array(chainNode),
    }),
    401: errorReply,
  },
};
