/**
 * The figures of bench/sweep-cost.ts, read from one mode's cost ledger after its run, and the sweep-cost
 * goal lines. Every sun is accounted for: per sweep from `sweep_costs`, per transaction kind
 * (fund, activate, delegate, sweep, undelegate, reclaim) from `sweep_transactions`, where each fee
 * was copied from the chain's transaction info.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../src/context.js";
import { queryRows } from "../src/db/query-rows.js";
import { formatSun } from "../src/money.js";
import { percentile } from "./chain-lib.js";

/**
 * The chain's real price of a USDT transfer to a holder, all of it burnt, from mainnet transaction
 * infos in test/fixtures/tron-real/: 985e1025 (2026-07) used 64,285 energy and billed 345 bytes
 * (net_fee 345,000 sun: 1,000 sun a byte); 09ced888 (2026-07) burnt 13,028,500 sun for 130,285
 * energy: 100 sun an energy unit. So 6.4285 TRX of energy plus 0.345 TRX of bandwidth.
 */
export const MAINNET = {
  usdtTransferEnergy: 64_285n,
  energyPriceSun: 100n,
  usdtTransferBytes: 345n,
  bandwidthPriceSun: 1_000n,
} as const;
export const MAINNET_USDT_TRANSFER_SUN =
  MAINNET.usdtTransferEnergy * MAINNET.energyPriceSun + MAINNET.usdtTransferBytes * MAINNET.bandwidthPriceSun;

interface CostRow extends Record<string, unknown> {
  fresh_address: boolean;
  trx_burnt: string;
  activation_trx: string;
  energy_used: string;
  energy_delegated: string;
  ms: number;
}

interface KindRow extends Record<string, unknown> {
  kind: string;
  fresh: boolean;
  n: number;
  fee: string;
  energy_fee: string;
  net_fee: string;
  bytes: string;
  energy: string;
}

export interface ModeReport {
  mode: "burn" | "delegate";
  sweeps: number;
  fresh: number;
  reused: number;
  /** delegate mode: sweeps that found the stake short and burnt (SWEEP_DELEGATE_FALLBACK=burn) */
  fell_back_to_burn: number;
  avg_trx_burnt_fresh: string | null;
  avg_trx_burnt_reused: string | null;
  max_trx_burnt_reused: string | null;
  avg_activation_trx_fresh: string | null;
  /** the most a fresh sweep burnt beyond its own activation */
  max_fresh_over_activation_trx: string | null;
  avg_energy_used_reused: number;
  /** every transaction of the mode's sweeps, by kind and address: where each sun was burnt */
  burnt_by_kind: Record<
    string,
    {
      txs: number;
      trx: string;
      energy_fee_trx: string;
      net_fee_trx: string;
      avg_bytes: number;
      energy_used: number;
    }
  >;
  /** bytes of the hot wallet's own transactions (fund, activate, delegate, undelegate) per phase */
  hot_wallet_bytes: { fresh_phase: number; reused_phase: number };
  outcome_to_solid_p50_ms: number;
  outcome_to_solid_p99_ms: number;
  outcome_to_solid_max_ms: number;
}

const avgSun = (values: bigint[]) =>
  values.length === 0 ? null : formatSun(values.reduce((s, v) => s + v, 0n) / BigInt(values.length));
const maxSun = (values: bigint[]) =>
  values.length === 0 ? null : formatSun(values.reduce((m, v) => (v > m ? v : m)));

export async function readModeReport(ctx: Context, mode: "burn" | "delegate"): Promise<ModeReport> {
  const rows = await queryRows<CostRow>(
    ctx.db,
    sql`SELECT fresh_address, trx_burnt::text AS trx_burnt, activation_trx::text AS activation_trx,
        energy_used::text AS energy_used, energy_delegated::text AS energy_delegated,
        (extract(epoch FROM swept_at - queued_at) * 1000)::float8 AS ms FROM sweep_costs`,
  );
  const kinds = await queryRows<KindRow>(
    ctx.db,
    sql`SELECT t.kind, COALESCE(c.fresh_address, false) AS fresh, count(*)::int AS n,
        COALESCE(sum(t.fee_sun), 0)::text AS fee, COALESCE(sum(t.energy_fee_sun), 0)::text AS energy_fee,
        COALESCE(sum(t.net_fee_sun), 0)::text AS net_fee, COALESCE(sum(t.net_usage), 0)::text AS bytes,
        COALESCE(sum(t.energy_used), 0)::text AS energy
      FROM sweep_transactions t
      LEFT JOIN sweep_costs c ON c.settlement_id = t.settlement_id AND c.round = t.round
      WHERE t.state IN ('solid', 'failed')
      GROUP BY t.kind, COALESCE(c.fresh_address, false) ORDER BY 1, 2`,
  );
  const fresh = rows.filter((r) => r.fresh_address);
  const reused = rows.filter((r) => !r.fresh_address);
  const times = rows.map((r) => Number(r.ms)).sort((a, b) => a - b);
  const reusedEnergy = reused.length
    ? reused.reduce((s, r) => s + BigInt(r.energy_used), 0n) / BigInt(reused.length)
    : 0n;
  const burntByKind: ModeReport["burnt_by_kind"] = {};
  const hotBytes = { fresh_phase: 0, reused_phase: 0 };
  for (const k of kinds) {
    burntByKind[`${k.kind}_${k.fresh ? "fresh" : "reused"}`] = {
      txs: k.n,
      trx: formatSun(BigInt(k.fee)),
      energy_fee_trx: formatSun(BigInt(k.energy_fee)),
      net_fee_trx: formatSun(BigInt(k.net_fee)),
      avg_bytes: Math.round(Number(k.bytes) / k.n),
      energy_used: Number(k.energy),
    };
    if (k.kind !== "sweep") hotBytes[k.fresh ? "fresh_phase" : "reused_phase"] += Number(k.bytes);
  }
  return {
    mode,
    sweeps: rows.length,
    fresh: fresh.length,
    reused: reused.length,
    fell_back_to_burn: mode === "delegate" ? rows.filter((r) => r.energy_delegated === "0").length : 0,
    avg_trx_burnt_fresh: avgSun(fresh.map((r) => BigInt(r.trx_burnt))),
    avg_trx_burnt_reused: avgSun(reused.map((r) => BigInt(r.trx_burnt))),
    max_trx_burnt_reused: maxSun(reused.map((r) => BigInt(r.trx_burnt))),
    avg_activation_trx_fresh: avgSun(fresh.map((r) => BigInt(r.activation_trx))),
    max_fresh_over_activation_trx: maxSun(fresh.map((r) => BigInt(r.trx_burnt) - BigInt(r.activation_trx))),
    avg_energy_used_reused: Number(reusedEnergy),
    burnt_by_kind: burntByKind,
    hot_wallet_bytes: hotBytes,
    outcome_to_solid_p50_ms: Math.round(percentile(times, 50)),
    outcome_to_solid_p99_ms: Math.round(percentile(times, 99)),
    outcome_to_solid_max_ms: Math.round(times.at(-1) ?? NaN),
  };
}

const sunOf = (trx: string | null) => (trx === null ? null : BigInt(trx.replace(".", "")));
const line = (goal: string, met: boolean, detail: string) =>
  `GOAL ${goal}: ${met ? "met" : "NOT MET"} (${detail})`;

/** One line per sweep-cost goal, each `met` or `NOT MET`, with the figures it was judged on. */
export function goalLines(burn: ModeReport, delegate: ModeReport): string[] {
  const reusedAvg = sunOf(delegate.avg_trx_burnt_reused);
  const reusedMax = sunOf(delegate.max_trx_burnt_reused);
  const overActivation = sunOf(delegate.max_fresh_over_activation_trx);
  const activation = sunOf(delegate.avg_activation_trx_fresh);
  const burnReused = sunOf(burn.avg_trx_burnt_reused);
  const deviation =
    burnReused === null
      ? NaN
      : (Number(burnReused - MAINNET_USDT_TRANSFER_SUN) / Number(MAINNET_USDT_TRANSFER_SUN)) * 100;
  const limitMs = burn.outcome_to_solid_p99_ms + 10_000;
  const slowest = Math.max(burn.outcome_to_solid_max_ms, delegate.outcome_to_solid_max_ms);
  return [
    line(
      "delegate mode, reused address: 0 TRX burnt",
      reusedAvg === 0n && reusedMax === 0n,
      `average ${delegate.avg_trx_burnt_reused} TRX, most ${delegate.max_trx_burnt_reused} TRX over ${delegate.reused} sweeps`,
    ),
    line(
      "delegate mode, fresh address: at most activation + 0.1 TRX",
      overActivation !== null &&
        overActivation <= 100_000n &&
        activation !== null &&
        activation <= 1_100_000n,
      `average ${delegate.avg_trx_burnt_fresh} TRX, activation ${delegate.avg_activation_trx_fresh} TRX ` +
        `(the chain's price: 1.1 TRX at most), most beyond it ${delegate.max_fresh_over_activation_trx} TRX`,
    ),
    line(
      "burn mode to a cold wallet holding USDT: within 5 % of the chain's real price",
      Math.abs(deviation) <= 5,
      `reused address ${burn.avg_trx_burnt_reused} TRX vs mainnet ${formatSun(MAINNET_USDT_TRANSFER_SUN)} TRX ` +
        `(64,285 energy x 100 sun + 345 bytes x 1,000 sun): ${deviation.toFixed(2)} %`,
    ),
    line(
      "no sweep slower than burn mode's p99 + 10 s",
      slowest <= limitMs,
      `slowest ${slowest} ms (burn ${burn.outcome_to_solid_max_ms}, delegate ${delegate.outcome_to_solid_max_ms}), limit ${limitMs} ms`,
    ),
  ];
}
