import { z } from "zod";
import { CHAIN_IDS, CURRENCIES } from "../../chains/chain-types.js";
import { errorReply } from "./error-reply.js";

const chainNode = z.object({
  node: z
    .string()
    .describe(
      '"node-1", "node-2", ... in the chain\'s node list (TRON_NODE_URL, <CHAIN>_RPC_URL); node-1 is preferred',
    ),
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

const sourceReply = z.enum(["scanner", "this process"]);

const chainEntry = z.object({
  chain: z.enum(CHAIN_IDS),
  chain_name: z.string().describe('the chain as people name it: "TRON", "Ethereum"'),
  network: z.string(),
  currencies: z.array(z.enum(CURRENCIES)),
  source: sourceReply,
  head: z.number().int().nullable(),
  finalized: z.number().int().nullable().describe("the newest final block; null while unknown"),
  finality_lag_blocks: z.number().int().nullable().describe("head - finalized"),
  scanned: z.number().int().nullable().describe("null where the chain has no scanned position"),
  scanner_lag_blocks: z.number().int().nullable(),
  nodes: z.array(chainNode),
});

export const getChainSchema = {
  tags: ["admin"],
  summary: "Chain watching per enabled chain: head, finalized head, the scanner's lag and every node",
  description:
    "Per chain, what the worker that scans it published within the last 15 s (source scanner), else this " +
    "process's own view (source this process). Makes no node call when the scanner published. The top-level " +
    "fields describe the primary chain; chains lists every enabled chain, the primary first.",
  security: [{ adminCookie: [] }],
  response: {
    200: z.object({
      network: z.string(),
      source: sourceReply,
      head: z.number().int().nullable(),
      scanned: z.number().int().nullable(),
      scanner_lag_blocks: z.number().int().nullable(),
      scanner_lag_alert_blocks: z.number().int(),
      nodes: z.array(chainNode),
      chains: z.array(chainEntry),
    }),
    401: errorReply,
  },
};
