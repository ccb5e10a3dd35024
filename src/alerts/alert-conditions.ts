/**
 * The operator-alert conditions (DESIGN.md 2 and 11) as they stand now. Each reading is `firing`
 * true or false, or undefined when it cannot be known this time (no balance read yet, no cursor):
 * an unknown reading leaves the alert as it is. The chain conditions (scanner_lag, node_down) are
 * read per enabled chain (chain-conditions.ts).
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { readMetricsSnapshot } from "../metrics/metrics-snapshot.js";
import { UNMATCHED_MARK } from "../payouts/evm-send.js";
import { waitingForFloat } from "../payouts/payout-float.js";
import { addressPools } from "../wallet/address-pools.js";
import { getFamilyPoolCounts } from "../wallet/get-address-pool-counts.js";
import { CHAIN_LABELS } from "../chains/chain-types.js";
import { readChainConditions } from "./chain-conditions.js";

export type Severity = "info" | "warning" | "critical";

export const CONDITION_ALERTS = [
  "hot_wallet_low",
  "scanner_lag",
  "node_down",
  "finality_fallback",
  "pool_low",
  "payout_float_low",
  "payout_unmatched",
] as const;
export type ConditionAlert = (typeof CONDITION_ALERTS)[number];

export interface ConditionReading {
  alert: ConditionAlert;
  /** What the alert is about: the alert's name, `<alert>:<chain>` for a chain's (scanner_lag, node_down), `pool_low:<family>`. */
  key: string;
  severity: Severity;
  firing: boolean | undefined;
  /** The message while it fires, and when it clears. */
  text: string;
  resolvedText: string;
  details: Record<string, string | number | null>;
}

export async function readAlertConditions(
  ctx: Context,
  options: { headFreshMs?: number } = {},
): Promise<ConditionReading[]> {
  const [pools, snapshot, perChain] = await Promise.all([
    getFamilyPoolCounts(ctx),
    readMetricsSnapshot(ctx),
    Promise.all(ctx.chains.list.map((chain) => readChainConditions(ctx, chain, options))),
  ]);
  const { alerts } = ctx.config;
  const enabledFamilies = new Set<string>(addressPools(ctx).map((pool) => pool.family));
  const readings: ConditionReading[] = perChain.flat();

  const threshold = ctx.config.hotWalletAlertTrx;
  const balance = ctx.config.hotWalletAddress ? snapshot.hotWalletBalanceTrx : undefined;
  readings.push({
    alert: "hot_wallet_low",
    key: "hot_wallet_low",
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

  readings.push(...(await evmHotWalletReadings(ctx)));

  // One per enabled chain family's pool (tron, evm), keyed `pool_low:<family>` (migration 0033
  // resolved the old family-less key): each pool serves its own chains' orders.
  for (const pool of pools) {
    if (!enabledFamilies.has(pool.family)) continue;
    readings.push({
      alert: "pool_low",
      key: `pool_low:${pool.family}`,
      severity: "warning",
      firing: pool.free < alerts.poolMinFree,
      text: `Only ${pool.free} deposit addresses are free in the ${pool.family} pool (alert below ${alerts.poolMinFree}): order creation on its chains slows down when it runs out`,
      resolvedText: `The ${pool.family} address pool has ${pool.free} free addresses again`,
      details: { family: pool.family, free: pool.free, threshold: alerts.poolMinFree },
    });
  }

  // DESIGN.md 14: approved refunds and payouts the hot wallet's USDT cannot cover wait for a top-up.
  const short = await waitingForFloat(ctx.db, "tron");
  const hot = ctx.config.hotWalletAddress;
  readings.push({
    alert: "payout_float_low",
    key: "payout_float_low",
    severity: "warning",
    firing: short.count > 0,
    text: `${short.count} approved refunds and payouts (${short.amount} USDT) wait: the hot wallet's USDT float is too small; top up ${hot ?? "the hot wallet"}`,
    resolvedText: "The hot wallet's USDT float covers the approved refunds and payouts again",
    details: { waiting: short.count, amount_usdt: short.amount, address: hot ?? null },
  });
  // The float of each EVM chain's hot wallet, keyed per chain (src/payouts/evm-send.ts).
  for (const chain of ctx.chains.list.filter((c) => c.nonces !== undefined)) {
    const waiting = await waitingForFloat(ctx.db, chain.id);
    const name = CHAIN_LABELS[chain.id].name;
    const evmHot = ctx.config.evmWallet.hotWalletAddress ?? null;
    readings.push({
      alert: "payout_float_low",
      key: `payout_float_low:${chain.id}`,
      severity: "warning",
      firing: waiting.count > 0,
      text: `${waiting.count} approved refunds and payouts on ${name} (${waiting.amount}) wait: the hot wallet's token float on ${name} is too small; top up ${evmHot ?? "the EVM hot wallet"} on ${name}`,
      resolvedText: `The hot wallet's float on ${name} covers the approved refunds and payouts again`,
      details: { chain: chain.id, waiting: waiting.count, amount: waiting.amount, address: evmHot },
    });
  }
  readings.push(...(await unmatchedPayoutReadings(ctx)));
  return readings;
}

/**
 * payout_unmatched per EVM chain (`payout_unmatched:<chain>`, critical): fires while a payout is held
 * because its final, successful transaction shows no Transfer of the exact units to the payout's
 * address (a token that keeps a fee or logs nothing; src/payouts/evm-send.ts). The money may have
 * moved, so the service never sends again by itself: an operator must look, and the alert says so.
 */
async function unmatchedPayoutReadings(ctx: Context): Promise<ConditionReading[]> {
  const chains = ctx.chains.list.filter((c) => c.nonces !== undefined);
  if (chains.length === 0) return [];
  const rows = await queryRows<{ chain: string; n: number; ids: string }>(
    ctx.db,
    sql`SELECT chain, count(*)::int AS n, string_agg(id::text, ', ' ORDER BY created_at) AS ids FROM payouts
        WHERE status = 'sending' AND last_error LIKE ${"%" + UNMATCHED_MARK} GROUP BY chain`,
  );
  return chains.map((chain) => {
    const row = rows.find((r) => r.chain === chain.id);
    const held = Number(row?.n ?? 0);
    const name = CHAIN_LABELS[chain.id].name;
    return {
      alert: "payout_unmatched" as const,
      key: `payout_unmatched:${chain.id}`,
      severity: "critical" as const,
      firing: held > 0,
      text: `${held} refunds and payouts on ${name} are held: their transaction succeeded but the chain shows no Transfer of the exact amount to the recipient (${row?.ids ?? ""}); check the token and the recipient before settling them by hand`,
      resolvedText: `No refund or payout on ${name} is held for an unmatched transfer any more`,
      details: { chain: chain.id, held, payout_ids: row?.ids ?? null },
    };
  });
}

/**
 * hot_wallet_low per EVM chain (`hot_wallet_low:<chain>`): fires while a sweep on that chain waits
 * because the hot wallet's native balance cannot pay its gas top-up (src/sweeps/evm-sweeps.ts marks
 * the leg), and resolves once the sweeper could send it.
 */
async function evmHotWalletReadings(ctx: Context): Promise<ConditionReading[]> {
  const chains = ctx.chains.list.filter((c) => c.nonces !== undefined);
  if (chains.length === 0) return [];
  const rows = await queryRows<{ chain: string; n: number }>(
    ctx.db,
    sql`SELECT chain, count(*)::int AS n FROM evm_sweep_legs
        WHERE state <> 'swept' AND hot_wallet_short_at IS NOT NULL GROUP BY chain`,
  );
  const address = ctx.config.evmWallet.hotWalletAddress ?? null;
  return chains.map((chain) => {
    const waiting = Number(rows.find((r) => r.chain === chain.id)?.n ?? 0);
    const name = CHAIN_LABELS[chain.id].name;
    return {
      alert: "hot_wallet_low" as const,
      key: `hot_wallet_low:${chain.id}`,
      severity: "warning" as const,
      firing: waiting > 0,
      text: `${waiting} sweeps on ${name} wait: the hot wallet's balance cannot pay their gas; top up ${address ?? "the EVM hot wallet"}`,
      resolvedText: `The hot wallet pays ${name} sweeps' gas again`,
      details: { chain: chain.id, waiting_sweeps: waiting, address },
    };
  });
}
