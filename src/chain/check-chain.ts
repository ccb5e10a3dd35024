/**
 * The chain part of /api/v1/health: the node's head (short timeout, cached ~2 s, and free when this
 * process's scanner saw the head within that time), the scanner's cursor, and the lag between them.
 * "degraded" when the node is unreachable, nothing was scanned yet, the lag exceeds
 * MAX_HEALTHY_LAG blocks (one minute of TRON blocks), or only a fallback node of TRON_NODE_URL
 * answers; health stays 200 for that. `nodes` lists every configured node as this process sees it
 * (scheme, host and port only: a path or query may carry a provider key).
 */
import type { Context } from "../context.js";
import { localSlot } from "../local-state.js";
import { readCursor, type BlockRef } from "./cursor.js";
import type { Chain, NodeState } from "../chains/chain.js";
import type { ChainId } from "../chains/chain-types.js";

export const MAX_HEALTHY_LAG = 20;
const HEAD_MAX_AGE_MS = 2000;
const HEAD_TIMEOUT_MS = 1500;

export interface ChainCheck {
  status: "ok" | "degraded";
  network: string;
  head: number | null;
  scanned: number | null;
  lag: number | null;
  nodes: NodeCheck[];
  error?: string;
}

export interface NodeCheck {
  /**
   * "node-1", "node-2", ... in TRON_NODE_URL's order. /health is public, so it does not show the
   * operator's node addresses; the token-guarded /metrics labels nodes by URL.
   */
  node: string;
  /** healthy, or set aside: failing (errors in a row) or lagging (head behind the best node) */
  state: NodeState;
  /** Calls go to this node now. */
  active: boolean;
  head: number | null;
  /** Blocks behind the best node at the last comparison. */
  lag: number | null;
  calls: number;
  errors: number;
}

interface Probe {
  at: number;
  head: number | null;
}

// Per chain, the last probe of this process and the one under way (concurrent checks share it).
const headProbes = localSlot(
  "node head probes",
  () => new Map<ChainId, { last?: Probe; inFlight?: Promise<Probe> }>(),
);

/** The block the chain's scanner has applied up to (its scanner_cursor row, cursor.ts), if any. */
export async function readScanned(ctx: Context, chain: Chain): Promise<BlockRef | undefined> {
  return readCursor(ctx, ctx.db, chain.id);
}

/** The chain's head: seen by this process within ~2 s, else one bounded call (null if none answers). */
export async function nodeHead(ctx: Context, chain: Chain): Promise<number | null> {
  const observed = chain.lastHead();
  const now = ctx.clock.now().getTime();
  if (observed && now - observed.at <= HEAD_MAX_AGE_MS) return observed.number;
  const probes = ctx.local.get(headProbes);
  let cache = probes.get(chain.id);
  if (!cache) probes.set(chain.id, (cache = {}));
  if (cache.last && now - cache.last.at <= HEAD_MAX_AGE_MS) return cache.last.head;
  cache.inFlight ??= (async (): Promise<Probe> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      const head = await Promise.race([
        chain.headNumber(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("timeout")), HEAD_TIMEOUT_MS);
        }),
      ]);
      chain.observeHead(head);
      return { at: ctx.clock.now().getTime(), head };
    } catch {
      return { at: ctx.clock.now().getTime(), head: null };
    } finally {
      clearTimeout(timer);
    }
  })().then((probe) => {
    const slot = probes.get(chain.id);
    if (slot) {
      slot.last = probe;
      slot.inFlight = undefined;
    }
    return probe;
  });
  return (await cache.inFlight).head;
}

export async function checkChain(ctx: Context, chain: Chain = ctx.chains.primary): Promise<ChainCheck> {
  const [head, cursor] = await Promise.all([
    nodeHead(ctx, chain),
    readScanned(ctx, chain).catch(() => undefined),
  ]);
  const scanned = cursor?.number ?? null;
  const lag = head !== null && scanned !== null ? Math.max(0, head - scanned) : null;
  const nodes = chain.nodes().map((n, index): NodeCheck => ({
    node: `node-${index + 1}`,
    state: n.state,
    active: n.active,
    head: n.head,
    lag: n.lag,
    calls: n.calls,
    errors: n.errors,
  }));
  const check: ChainCheck = { status: "ok", network: chain.network, head, scanned, lag, nodes };
  // The messages are fixed phrases: a node URL or driver text never reaches the public endpoint.
  if (head === null) return { ...check, status: "degraded", error: "node unreachable" };
  if (scanned === null) return { ...check, status: "degraded", error: "not scanned yet" };
  if (lag !== null && lag > MAX_HEALTHY_LAG) return { ...check, status: "degraded", error: "scanner behind" };
  if (chain.degraded()) return { ...check, status: "degraded", error: "only a fallback node answers" };
  return check;
}
