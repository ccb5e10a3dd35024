/**
 * The operator-alert conditions (DESIGN.md 2 and 11) as they stand now. Each reading is `firing`
 * true or false, or undefined when it cannot be known this time (no balance read yet, no cursor):
 * an unknown reading leaves the alert as it is. Node calls: none when this process saw the head in
 * the last few seconds (the scanner's process) or the scanner published a recent one
 * (chain-status.ts, any other worker), else one getnowblock per evaluation.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { CHAIN_STATUS_PUBLISH_MS, readChainStatus } from "../chain/chain-status.js";
import { readCursor } from "../chain/cursor.js";
import { queryRows } from "../db/query-rows.js";
import { readMetricsSnapshot } from "../metrics/metrics-snapshot.js";
import { waitingForFloat } from "../payouts/payout-float.js";

export type Severity = "info" | "warning" | "critical";

export const CONDITION_ALERTS = [
  "hot_wallet_low",
  "scanner_lag",
  "node_down",
  "pool_low",
  "payout_float_low",
] as const;
export type ConditionAlert = (typeof CONDITION_ALERTS)[number];

export interface ConditionReading {
  alert: ConditionAlert;
  severity: Severity;
  firing: boolean | undefined;
  /** The message while it fires, and when it clears. */
  text: string;
  resolvedText: string;
  details: Record<string, string | number | null>;
}

const NODE_ANSWER_KEY = "alerts_node_answered_at";
const HEAD_FRESH_MS = 5_000;
const HEAD_TIMEOUT_MS = 3_000;

export async function readAlertConditions(
  ctx: Context,
  options: { headFreshMs?: number } = {},
): Promise<ConditionReading[]> {
  const now = ctx.clock.now().getTime();
  const seen = await currentHead(ctx, options.headFreshMs ?? HEAD_FRESH_MS);
  const head = seen?.number;
  const [poolFree, snapshot, cursor, answeredAt] = await Promise.all([
    freeAddresses(ctx),
    readMetricsSnapshot(ctx),
    readCursor(ctx),
    // A head observed a few seconds ago is an answer of that moment.
    nodeAnsweredAt(ctx, seen?.at, now),
  ]);
  const { alerts } = ctx.config;
  const readings: ConditionReading[] = [];

  const threshold = ctx.config.hotWalletAlertTrx;
  const balance = ctx.config.hotWalletAddress ? snapshot.hotWalletBalanceTrx : undefined;
  readings.push({
    alert: "hot_wallet_low",
    severity: "warning",
    firing: balance === undefined ? undefined : balance < threshold,
    text: `Hot wallet balance ${balance} TRX is below the alert threshold of ${threshold} TRX: sweeps will stop when it cannot pay their fees`,
    resolvedText: `Hot wallet balance is back to ${balance} TRX (threshold ${threshold} TRX)`,
    details: {
      balance_trx: balance ?? null,
      threshold_trx: threshold,
      address: ctx.config.hotWalletAddress ?? null,
    },
  });

  const lag = head !== undefined && cursor ? Math.max(0, head - cursor.number) : undefined;
  readings.push({
    alert: "scanner_lag",
    severity: "critical",
    firing: lag === undefined ? undefined : lag > alerts.scannerLagBlocks,
    text: `The chain scanner is ${lag} blocks behind the node's head (alert above ${alerts.scannerLagBlocks}): payments are detected late`,
    resolvedText: `The chain scanner has caught up (${lag} blocks behind)`,
    details: {
      lag_blocks: lag ?? null,
      head: head ?? null,
      scanned: cursor?.number ?? null,
      threshold_blocks: alerts.scannerLagBlocks,
    },
  });

  const silentFor = Math.max(0, Math.floor((now - answeredAt) / 1000));
  const nodes = ctx.chains.primary.nodes().map((n) => n.name);
  readings.push({
    alert: "node_down",
    severity: "critical",
    firing: silentFor >= alerts.nodeDownSeconds,
    text: `No TRON node has answered for ${silentFor} s (alert after ${alerts.nodeDownSeconds} s): payments are not being detected`,
    resolvedText: `A TRON node answers again`,
    details: {
      silent_seconds: silentFor,
      threshold_seconds: alerts.nodeDownSeconds,
      nodes: nodes.join(", "),
    },
  });

  readings.push({
    alert: "pool_low",
    severity: "warning",
    firing: poolFree < alerts.poolMinFree,
    text: `Only ${poolFree} deposit addresses are free in the pool (alert below ${alerts.poolMinFree}): order creation slows down when it runs out`,
    resolvedText: `The address pool has ${poolFree} free addresses again`,
    details: { free: poolFree, threshold: alerts.poolMinFree },
  });

  // DESIGN.md 14: approved refunds and payouts the hot wallet's USDT cannot cover wait for a top-up.
  const short = await waitingForFloat(ctx.db);
  const hot = ctx.config.hotWalletAddress;
  readings.push({
    alert: "payout_float_low",
    severity: "warning",
    firing: short.count > 0,
    text: `${short.count} approved refunds and payouts (${short.amount} USDT) wait: the hot wallet's USDT float is too small; top up ${hot ?? "the hot wallet"}`,
    resolvedText: "The hot wallet's USDT float covers the approved refunds and payouts again",
    details: { waiting: short.count, amount_usdt: short.amount, address: hot ?? null },
  });
  return readings;
}

/**
 * The node's head and when it was seen (ctx.clock): the one this process saw moments ago, else the
 * one the scanner published moments ago, else one call (undefined if no node answers).
 */
async function currentHead(
  ctx: Context,
  freshMs: number,
): Promise<{ number: number; at: number } | undefined> {
  const now = ctx.clock.now().getTime();
  const seen = ctx.chains.primary.lastHead();
  // freshMs 0 asks the node itself: no head seen or published earlier counts, whatever the clock
  // says (a stepped test clock may stand before the time a head was stamped with).
  if (freshMs > 0 && seen && now - seen.at < freshMs) return seen;
  const published = freshMs > 0 ? await readChainStatus(ctx).catch(() => undefined) : undefined;
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
      ctx.chains.primary.headNumber(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), HEAD_TIMEOUT_MS);
      }),
    ]);
    ctx.chains.primary.observeHead(head);
    return { number: head, at: ctx.clock.now().getTime() };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * When a node last answered any evaluating process (shared in app_state, so every worker judges
 * "no node for N seconds" alike). The first evaluation ever counts as an answer: the clock starts.
 */
async function nodeAnsweredAt(ctx: Context, answeredNow: number | undefined, now: number): Promise<number> {
  const at = new Date(answeredNow ?? now).toISOString();
  const rows = await queryRows<{ at: string }>(
    ctx.db,
    answeredNow !== undefined
      ? sql`INSERT INTO app_state (key, value, updated_at) VALUES (${NODE_ANSWER_KEY}, '{}'::jsonb, ${at}::timestamptz)
            ON CONFLICT (key) DO UPDATE SET updated_at = GREATEST(app_state.updated_at, EXCLUDED.updated_at)
            RETURNING (extract(epoch FROM updated_at) * 1000)::bigint::text AS at`
      : sql`INSERT INTO app_state (key, value, updated_at) VALUES (${NODE_ANSWER_KEY}, '{}'::jsonb, ${at}::timestamptz)
            ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
            RETURNING (extract(epoch FROM updated_at) * 1000)::bigint::text AS at`,
  );
  return rows[0] ? Number(rows[0].at) : (answeredNow ?? now);
}

// The pool's counters (migration 0013): no index of addresses covers status since 0016.
async function freeAddresses(ctx: Context): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    ctx.db,
    sql`SELECT coalesce(sum(free), 0)::int AS n FROM address_pool_counts`,
  );
  return Number(rows[0]?.n ?? 0);
}
