/**
 * What sweeps really cost, per mode, over the last 7 UTC days (today included, as the admin stats
 * count a week) and over all time: from `sweep_costs`, which the sweeper fills from the transaction
 * infos. TRX as 6-decimal strings; the average is over finished sweeps, rounded down to the sun.
 */
import { sql } from "drizzle-orm";
import type { SweepCostSummary, SweepCostWindow } from "../admin/api-shapes.js";
import type { SweepMode } from "../config.js";
import { SWEEP_MODES } from "../config.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
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
  const out = {} as SweepCostSummary;
  for (const mode of SWEEP_MODES) {
    const row = rows.find((r) => r.mode === mode);
    out[mode] = {
      week: window(row?.week_count ?? null, row?.week_sun ?? null),
      total: window(row?.all_count ?? null, row?.all_sun ?? null),
    };
  }
  return out;
}
