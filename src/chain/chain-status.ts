/**
 * The scanner's view of the chain, shared through one app_state row: the worker that holds the
 * scanner lock publishes its node pool's state (each node's health, head and lag) and the head it
 * last saw every few seconds. Any process (an `api` replica that made no node call itself, another
 * worker's alert evaluator) reads the row instead of asking a node: the dashboard and the alert
 * conditions see what the scanner sees, at no node call. Publishing is a database write, never a
 * node call.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { Chain, NodeState } from "../chains/chain.js";

const CHAIN_STATUS_KEY = "chain_status";
/** How often the scanning worker writes the row. */
export const CHAIN_STATUS_PUBLISH_MS = 5_000;
/** A row older than this is not trusted (the scanner stopped or lost its lock). */
export const CHAIN_STATUS_MAX_AGE_MS = 15_000;

export interface PublishedNode {
  /** Position in TRON_NODE_URL (0 = preferred). */
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
  nodes: PublishedNode[];
}

/** Publishes `chain`'s view; only the primary chain's is read yet (another's has a row of its own). */
export async function publishChainStatus(ctx: Context, chain: Chain = ctx.chains.primary): Promise<void> {
  const seen = chain.lastHead();
  const status: PublishedChainStatus = {
    at: ctx.clock.now().getTime(),
    head: seen?.number ?? null,
    headAt: seen?.at ?? null,
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
        VALUES (${chain === ctx.chains.primary ? CHAIN_STATUS_KEY : `${CHAIN_STATUS_KEY}:${chain.id}`},
          ${JSON.stringify(status)}::jsonb, now())
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
  );
}

/** The published status if it is recent enough to describe the chain now, else undefined. */
export async function readChainStatus(
  ctx: Context,
  maxAgeMs = CHAIN_STATUS_MAX_AGE_MS,
): Promise<PublishedChainStatus | undefined> {
  const rows = await queryRows<{ value: unknown }>(
    ctx.db,
    sql`SELECT value FROM app_state WHERE key = ${CHAIN_STATUS_KEY}`,
  );
  const raw = rows[0]?.value;
  const value = (typeof raw === "string" ? JSON.parse(raw) : raw) as PublishedChainStatus | undefined;
  if (!value || typeof value.at !== "number" || !Array.isArray(value.nodes)) return undefined;
  return ctx.clock.now().getTime() - value.at <= maxAgeMs ? value : undefined;
}
