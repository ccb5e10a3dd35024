/**
 * GET /api/v1/admin/chain: for every enabled chain, the head, the finalized head, the scanner's lag
 * and every node of the chain's node list, for the dashboard. The top-level fields describe the
 * primary chain (the reply before chains were added); `chains` lists each enabled chain, the
 * primary first. Each chain shows what its scanning worker published (chain-status.ts), so an `api`
 * replica that never calls a node still shows the nodes the scanner uses; without a recent
 * publication it shows this process's own pool and, for the head, the health probe (one head call
 * at most every 2 s per chain) and the finalized head (one bounded call: final-head.ts).
 */
import type { AdminChainEntry, AdminChainNode, AdminChainStatus } from "../admin/api-shapes.js";
import type { Chain } from "../chains/chain.js";
import { CHAIN_LABELS } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import { readChainStatus, type PublishedNode } from "./chain-status.js";
import { checkChain, readScanned } from "./check-chain.js";
import { finalizedHead } from "./final-head.js";

export async function getChainOverview(ctx: Context): Promise<AdminChainStatus> {
  const chains = await Promise.all(ctx.chains.list.map((chain) => chainEntry(ctx, chain)));
  const [primary] = chains as [AdminChainEntry, ...AdminChainEntry[]];
  return {
    network: primary.network,
    source: primary.source,
    head: primary.head,
    scanned: primary.scanned,
    scanner_lag_blocks: primary.scanner_lag_blocks,
    scanner_lag_alert_blocks: ctx.config.alerts.scannerLagBlocks,
    nodes: primary.nodes,
    chains,
  };
}

async function chainEntry(ctx: Context, chain: Chain): Promise<AdminChainEntry> {
  const published = await readChainStatus(ctx, chain.id);
  const finalized = published ? (published.finalized ?? null) : await finalizedHead(ctx, chain);
  let head: number | null;
  let nodes: PublishedNode[];
  let scanned: number | null;
  if (published) {
    head = published.head;
    nodes = published.nodes;
    scanned = (await readScanned(ctx, chain))?.number ?? null;
  } else {
    const check = await checkChain(ctx, chain);
    head = check.head;
    scanned = check.scanned;
    nodes = chain.nodes();
  }
  // The head was observed earlier than the cursor was read (up to a publication interval ago), so
  // the scanner may have passed it meanwhile. A scanned block is on the chain: the head is at least
  // that high, and the panel never shows "scanned" past "head".
  if (head !== null && scanned !== null && scanned > head) head = scanned;
  return {
    chain: chain.id,
    chain_name: CHAIN_LABELS[chain.id].name,
    network: chain.network,
    currencies: [...chain.currencies],
    source: published ? "scanner" : "this process",
    head,
    finalized,
    finality_lag_blocks: head !== null && finalized !== null ? Math.max(0, head - finalized) : null,
    scanned,
    scanner_lag_blocks: head !== null && scanned !== null ? Math.max(0, head - scanned) : null,
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
