/**
 * GET /api/v1/admin/stats/daily: the last 7 UTC days, oldest first, zero-filled, bucketed by the
 * orders' created_at date, so the entries add up to the week's total_received. Read from the daily
 * rollups (at most 7 days x merchants x statuses x chains and currencies rows). The `chain` and
 * `currency` filters narrow it as they narrow GET /admin/stats.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { formatAmount } from "../money.js";
import { hasOutcomeSql, rollupFilterSql, type StatsFilter } from "./get-stats.js";
import { DAY_MS, STATS_DAYS, statsWindow, utcDate } from "./stats-window.js";

export interface DailyRevenue {
  date: string;
  total_received: string;
}

export async function getDailyStats(ctx: Context, filter: StatsFilter = {}): Promise<DailyRevenue[]> {
  const { weekStart, tomorrowStart } = statsWindow(ctx.clock.now());
  const rows = await queryRows<{ day: string; received: string }>(
    ctx.db,
    sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(amount_received)::text AS received
      FROM order_rollups_daily
      WHERE day >= ${utcDate(weekStart)}::date AND day < ${utcDate(tomorrowStart)}::date
        AND ${hasOutcomeSql} AND ${rollupFilterSql(filter)}
      GROUP BY day`,
  );
  const byDay = new Map(rows.map((row) => [row.day, BigInt(row.received)]));
  return Array.from({ length: STATS_DAYS }, (_, i) => {
    const date = utcDate(new Date(weekStart.getTime() + i * DAY_MS));
    return { date, total_received: formatAmount(byDay.get(date) ?? 0n) };
  });
}
