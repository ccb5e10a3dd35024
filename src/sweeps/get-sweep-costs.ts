/**
 * What sweeps really cost, per mode, over the last 7 UTC days (today included, as the admin stats
 * count a week) and over all time: from `sweep_costs`, which the sweeper fills from the transaction
 * infos. TRX as 6-decimal strings; the average is over finished sweeps, rounded down to the sun.
 * Each EVM chain's, over the same two windows, from `evm_sweep_legs` (docs/evm-sweeps.md "What it
 * cost"): exact wei and 18-decimal strings of the native coin.
 */
import { sql } from "drizzle-orm";
import type {
  EvmSweepCost,
  EvmSweepCostWindow,
  SweepCostSummary,
  SweepCostWindow,
} from "../admin/api-shapes.js";
import type { SweepMode } from "../config.js";
import { SWEEP_MODES } from "../config.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { nativeSymbol } from "../chains/chain-types.js";
import { formatWei } from "../chains/token-units.js";
import { formatSun } from "../money.js";

const DAY_MS = 86_400_000;

function window(count: string | null, sun: string | null): SweepCostWindow {
  const n = BigInt(count ?? 0);
  const total = BigInt(sun ?? 0);
  return {
    count: Number(n),
    total_trx: formatSun(total),
    average_trx: formatSun(n === 0n ? 0n : total / n),
  };
}

export async function getSweepCosts(ctx: Context): Promise<SweepCostSummary> {
  const now = ctx.clock.now().getTime();
  const weekStart = new Date(now - (now % DAY_MS) - 6 * DAY_MS).toISOString();
  const rows = await queryRows<{
    mode: SweepMode;
    week_count: string;
    week_sun: string | null;
    all_count: string;
    all_sun: string | null;
  }>(
    ctx.db,
    sql`SELECT mode,
        (count(*) FILTER (WHERE finished_at >= ${weekStart}::timestamptz))::text AS week_count,
        (sum(trx_burnt) FILTER (WHERE finished_at >= ${weekStart}::timestamptz))::text AS week_sun,
        count(*)::text AS all_count, sum(trx_burnt)::text AS all_sun
      FROM sweep_costs GROUP BY mode`,
  );
  const out = { evm: await evmSweepCosts(ctx, weekStart) } as SweepCostSummary;
  for (const mode of SWEEP_MODES) {
    const row = rows.find((r) => r.mode === mode);
    out[mode] = {
      week: window(row?.week_count ?? null, row?.week_sun ?? null),
      total: window(row?.all_count ?? null, row?.all_sun ?? null),
    };
  }
  return out;
}

function evmWindow(count: string | null, gasWei: string | null, sweepWei: string | null): EvmSweepCostWindow {
  const n = BigInt(count ?? 0);
  const gas = BigInt(gasWei ?? 0);
  const sweep = BigInt(sweepWei ?? 0);
  const total = gas + sweep;
  const average = n === 0n ? 0n : total / n;
  return {
    count: Number(n),
    gas_cost_wei: gas.toString(),
    gas_cost: formatWei(gas),
    sweep_gas_cost_wei: sweep.toString(),
    sweep_gas_cost: formatWei(sweep),
    total_wei: total.toString(),
    total: formatWei(total),
    average_wei: average.toString(),
    average: formatWei(average),
  };
}

/**
 * Per EVM chain (every configured one, and any other with legs): the swept legs' gas, all time and
 * over the last 7 UTC days (by swept_at, the day TRON's window counts by finished_at), and the dust
 * still on the addresses. A later top-up of an address spends its dust, so only each address's
 * latest swept leg's dust is counted, never the sum over its sweeps.
 */
async function evmSweepCosts(ctx: Context, weekStart: string): Promise<EvmSweepCost[]> {
  const rows = await queryRows<{
    chain: string;
    sweeps: string;
    gas: string;
    sweep_gas: string;
    week_sweeps: string;
    week_gas: string;
    week_sweep_gas: string;
    dust: string;
  }>(
    ctx.db,
    sql`WITH swept AS (SELECT * FROM evm_sweep_legs WHERE state = 'swept'),
        latest AS (SELECT DISTINCT ON (chain, address) chain, dust_wei FROM swept
                   ORDER BY chain, address, swept_at DESC, round DESC, currency DESC)
      SELECT s.chain, count(*)::text AS sweeps, coalesce(sum(s.gas_cost_wei), 0)::text AS gas,
        coalesce(sum(s.sweep_gas_cost_wei), 0)::text AS sweep_gas,
        (count(*) FILTER (WHERE s.swept_at >= ${weekStart}::timestamptz))::text AS week_sweeps,
        coalesce(sum(s.gas_cost_wei) FILTER (WHERE s.swept_at >= ${weekStart}::timestamptz), 0)::text AS week_gas,
        coalesce(sum(s.sweep_gas_cost_wei) FILTER (WHERE s.swept_at >= ${weekStart}::timestamptz), 0)::text
          AS week_sweep_gas,
        (SELECT coalesce(sum(l.dust_wei), 0) FROM latest l WHERE l.chain = s.chain)::text AS dust
      FROM swept s GROUP BY s.chain`,
  );
  const chains = [
    ...new Set([...ctx.config.evmChains.map((c) => c.id as string), ...rows.map((r) => r.chain)]),
  ];
  return chains.map((chain) => {
    const row = rows.find((r) => r.chain === chain);
    const total = evmWindow(row?.sweeps ?? null, row?.gas ?? null, row?.sweep_gas ?? null);
    const dust = BigInt(row?.dust ?? 0);
    return {
      chain,
      native_symbol: nativeSymbol(chain),
      sweeps: total.count,
      gas_cost_wei: total.gas_cost_wei,
      gas_cost: total.gas_cost,
      sweep_gas_cost_wei: total.sweep_gas_cost_wei,
      sweep_gas_cost: total.sweep_gas_cost,
      total_wei: total.total_wei,
      total: total.total,
      dust_wei: dust.toString(),
      dust: formatWei(dust),
      windows: {
        week: evmWindow(row?.week_sweeps ?? null, row?.week_gas ?? null, row?.week_sweep_gas ?? null),
        total,
      },
    };
  });
}
