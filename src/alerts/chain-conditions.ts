/**
 * The alert conditions of one chain: scanner_lag (its scanner behind its head), node_down (no
 * node of the chain answered for ALERT_NODE_DOWN_SECONDS) and finality_fallback (its finality
 * signal stalled and a fallback depth of confirmations stands in: BSC's, docs/chains.md), keyed `<alert>:<chain>` so each chain's
 * alert fires and resolves on its own, with `chain` in the details. Node calls: none when this
 * process saw the chain's head in the last few seconds (the scanner's process) or the chain's
 * scanner published a recent one (chain-status.ts, any other worker), else one head call per
 * evaluation.
 */
import { sql } from "drizzle-orm";
import type { Chain } from "../chains/chain.js";
import { CHAIN_LABELS, type ChainId } from "../chains/chain-types.js";
import { CHAIN_STATUS_PUBLISH_MS, readChainStatus } from "../chain/chain-status.js";
import { readScanned } from "../chain/check-chain.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { ConditionReading } from "./alert-conditions.js";

const nodeAnswerKey = (chain: ChainId) => `alerts_node_answered_at:${chain}`;
const HEAD_FRESH_MS = 5_000;
const HEAD_TIMEOUT_MS = 3_000;

export async function readChainConditions(
  ctx: Context,
  chain: Chain,
  options: { headFreshMs?: number },
): Promise<ConditionReading[]> {
  const now = ctx.clock.now().getTime();
  const seen = await currentHead(ctx, chain, options.headFreshMs ?? HEAD_FRESH_MS);
  const head = seen?.number;
  const [cursor, answeredAt] = await Promise.all([
    readScanned(ctx, chain),
    // A head observed a few seconds ago is an answer of that moment.
    nodeAnsweredAt(ctx, chain.id, seen?.at, now),
  ]);
  const { alerts } = ctx.config;
  const name = CHAIN_LABELS[chain.id].name;

  const lag = head !== undefined && cursor ? Math.max(0, head - cursor.number) : undefined;
  // The scanner's process knows it first-hand; any other reads what that process published.
  const fallback =
    chain.finalityFallback() ||
    ((await readChainStatus(ctx, chain.id).catch(() => undefined))?.finalityFallback ?? false);
  const silentFor = Math.max(0, Math.floor((now - answeredAt) / 1000));
  return [
    {
      alert: "scanner_lag",
      key: `scanner_lag:${chain.id}`,
      severity: "critical",
      firing: lag === undefined ? undefined : lag > alerts.scannerLagBlocks,
      text: `The chain scanner is ${lag} blocks behind the ${name} node's head (alert above ${alerts.scannerLagBlocks}): payments are detected late`,
      resolvedText: `The ${name} chain scanner has caught up (${lag} blocks behind)`,
      details: {
        chain: chain.id,
        lag_blocks: lag ?? null,
        head: head ?? null,
        scanned: cursor?.number ?? null,
        threshold_blocks: alerts.scannerLagBlocks,
      },
    },
    {
      alert: "finality_fallback",
      key: `finality_fallback:${chain.id}`,
      severity: "warning",
      firing: fallback,
      text: `${name}'s finalized block has stalled: payments are final only after the fallback depth of confirmations, so outcomes come later`,
      resolvedText: `${name}'s finalized block moves again`,
      details: { chain: chain.id },
    },
    {
      alert: "node_down",
      key: `node_down:${chain.id}`,
      severity: "critical",
      firing: silentFor >= alerts.nodeDownSeconds,
      text: `No ${name} node has answered for ${silentFor} s (alert after ${alerts.nodeDownSeconds} s): payments are not being detected`,
      resolvedText: `A ${name} node answers again`,
      details: {
        chain: chain.id,
        silent_seconds: silentFor,
        threshold_seconds: alerts.nodeDownSeconds,
        nodes: chain
          .nodes()
          .map((n) => n.name)
          .join(", "),
      },
    },
  ];
}

/**
 * The chain's head and when it was seen (ctx.clock): the one this process saw moments ago, else the
 * one the chain's scanner published moments ago, else one call (undefined if no node answers).
 */
async function currentHead(
  ctx: Context,
  chain: Chain,
  freshMs: number,
): Promise<{ number: number; at: number } | undefined> {
  const now = ctx.clock.now().getTime();
  const seen = chain.lastHead();
  // freshMs 0 asks the node itself: no head seen or published earlier counts, whatever the clock
  // says (a stepped test clock may stand before the time a head was stamped with).
  if (freshMs > 0 && seen && now - seen.at < freshMs) return seen;
  const published = freshMs > 0 ? await readChainStatus(ctx, chain.id).catch(() => undefined) : undefined;
  if (
    published?.head != null &&
    published.headAt != null &&
    now - published.headAt < freshMs + CHAIN_STATUS_PUBLISH_MS
  ) {
    return { number: published.head, at: published.headAt };
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const head = await Promise.race([
      chain.headNumber(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), HEAD_TIMEOUT_MS);
      }),
    ]);
    chain.observeHead(head);
    return { number: head, at: ctx.clock.now().getTime() };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * When a node of the chain last answered any evaluating process (shared in app_state, so every
 * worker judges "no node for N seconds" alike). The first evaluation ever counts as an answer: the
 * clock starts.
 */
async function nodeAnsweredAt(
  ctx: Context,
  chain: ChainId,
  answeredNow: number | undefined,
  now: number,
): Promise<number> {
  const at = new Date(answeredNow ?? now).toISOString();
  const key = nodeAnswerKey(chain);
  const rows = await queryRows<{ at: string }>(
    ctx.db,
    answeredNow !== undefined
      ? sql`INSERT INTO app_state (key, value, updated_at) VALUES (${key}, '{}'::jsonb, ${at}::timestamptz)
            ON CONFLICT (key) DO UPDATE SET updated_at = GREATEST(app_state.updated_at, EXCLUDED.updated_at)
            RETURNING (extract(epoch FROM updated_at) * 1000)::bigint::text AS at`
      : sql`INSERT INTO app_state (key, value, updated_at) VALUES (${key}, '{}'::jsonb, ${at}::timestamptz)
            ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
            RETURNING (extract(epoch FROM updated_at) * 1000)::bigint::text AS at`,
  );
  return rows[0] ? Number(rows[0].at) : (answeredNow ?? now);
}
