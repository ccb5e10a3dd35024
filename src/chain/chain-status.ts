/**
 * The scanners' view of each chain, shared through one app_state row per chain
 * (`chain_status:<chain>`): the worker that holds a chain's scanner lock publishes that chain's node
 * pool (each node's health, head and lag) and the head it last saw every few seconds. Any process (an `api` replica that made no node call itself, another
 * worker's alert evaluator) reads the row instead of asking a node: the dashboard and the alert
 * conditions see what the scanner sees, at no node call. Publishing costs one node call, bounded
 * (the finalized head: final-head.ts), and a database write.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { Chain, NodeState } from "../chains/chain.js";
import type { ChainId } from "../chains/chain-types.js";
import { finalizedHead } from "./final-head.js";

const statusKey = (chain: ChainId) => `chain_status:${chain}`;
/** How often the scanning worker writes the row. */
export const CHAIN_STATUS_PUBLISH_MS = 5_000;
/** A row older than this is not trusted (the scanner stopped or lost its lock). */
export const CHAIN_STATUS_MAX_AGE_MS = 15_000;

export interface PublishedNode {
  /** Position in the chain's node list (TRON_NODE_URL, <CHAIN>_RPC_URL; 0 = preferred). */
  index: number;
  /** scheme://host:port only (no credentials, path or query). */
  name: string;
  state: NodeState;
  active: boolean;
  head: number | null;
  lag: number | null;
  calls: number;
  errors: number;
  retryAt: string | null;
}

export interface PublishedChainStatus {
  /** When it was published (ms, the publisher's ctx.clock, like the head observations). */
  at: number;
  /** The head the scanner saw last and when (ms, same clock); null before its first. */
  head: number | null;
  headAt: number | null;
  /** The newest final block when it was published; null when the chain did not answer in time. */
  finalized?: number | null;
  /** The final block came from a fallback depth because the chain's finality signal stalled. */
  finalityFallback?: boolean;
  nodes: PublishedNode[];
}

export async function publishChainStatus(ctx: Context, chain: Chain): Promise<void> {
  const finalized = await finalizedHead(ctx, chain);
  const seen = chain.lastHead();
  const status: PublishedChainStatus = {
    at: ctx.clock.now().getTime(),
    head: seen?.number ?? null,
    headAt: seen?.at ?? null,
    finalized,
    finalityFallback: chain.finalityFallback(),
    // lastError is left out: a driver message may quote a node URL with its provider key.
    nodes: chain.nodes().map((n) => ({
      index: n.index,
      name: n.name,
      state: n.state,
      active: n.active,
      head: n.head,
      lag: n.lag,
      calls: n.calls,
      errors: n.errors,
      retryAt: n.retryAt,
    })),
  };
  await ctx.db.execute(
    sql`INSERT INTO app_state (key, value, updated_at)
        VALUES (${statusKey(chain.id)}, ${JSON.stringify(status)}::jsonb, now())
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
  );
}

/** The chain's published status if it is recent enough to describe the chain now, else undefined. */
export async function readChainStatus(
  ctx: Context,
  chain: ChainId,
  maxAgeMs = CHAIN_STATUS_MAX_AGE_MS,
): Promise<PublishedChainStatus | undefined> {
  const rows = await queryRows<{ value: unknown }>(
    ctx.db,
    sql`SELECT value FROM app_state WHERE key = ${statusKey(chain)}`,
  );
  const raw = rows[0]?.value;
  const value = (typeof raw === "string" ? JSON.parse(raw) : raw) as PublishedChainStatus | undefined;
  if (!value || typeof value.at !== "number" || !Array.isArray(value.nodes)) return undefined;
  return ctx.clock.now().getTime() - value.at <= maxAgeMs ? value : undefined;
}
