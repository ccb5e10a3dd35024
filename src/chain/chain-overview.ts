/**
 * GET /api/v1/admin/chain: the scanner's lag and every node of TRON_NODE_URL, for the dashboard.
 * It shows what the scanning worker published (chain-status.ts), so an `api` replica that never
 * calls a node still shows the nodes the scanner uses; without a recent publication (no scanner
 * running, or this process is the only one) it shows this process's own pool and, for the head, the
 * health probe (one getnowblock at most every 2 s, free when this process scanned just now).
 */
import type { AdminChainNode, AdminChainStatus } from "../admin/api-shapes.js";
import type { Context } from "../context.js";
import { readChainStatus, type PublishedNode } from "./chain-status.js";
import { checkChain } from "./check-chain.js";
import { readCursor } from "./cursor.js";

export async function getChainOverview(ctx: Context): Promise<AdminChainStatus> {
  const published = await readChainStatus(ctx);
  let head: number | null;
  let nodes: PublishedNode[];
  let scanned: number | null;
  if (published) {
    head = published.head;
    nodes = published.nodes;
    scanned = (await readCursor(ctx))?.number ?? null;
  } else {
    const check = await checkChain(ctx);
    head = check.head;
    scanned = check.scanned;
    nodes = ctx.chains.primary.nodes();
  }
  // The head was observed earlier than the cursor was read (up to a publication interval ago), so
  // the scanner may have passed it meanwhile. A scanned block is on the chain: the head is at least
  // that high, and the panel never shows "scanned" past "head".
  if (head !== null && scanned !== null && scanned > head) head = scanned;
  return {
    network: ctx.chains.primary.network,
    source: published ? "scanner" : "this process",
    head,
    scanned,
    scanner_lag_blocks: head !== null && scanned !== null ? Math.max(0, head - scanned) : null,
    scanner_lag_alert_blocks: ctx.config.alerts.scannerLagBlocks,
    nodes: nodes.map((n): AdminChainNode => ({
      node: `node-${n.index + 1}`,
      url: n.name,
      role: n.index === 0 ? "preferred" : "fallback",
      state: n.state,
      active: n.active,
      head: n.head,
      lag: n.lag,
      calls: n.calls,
      errors: n.errors,
      retry_at: n.retryAt,
    })),
  };
}
