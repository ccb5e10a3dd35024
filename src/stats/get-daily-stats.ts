/**
 * GET /api/v1/admin/stats/daily: the last 7 UTC days, oldest first, zero-filled, bucketed by the
 * orders' created_at date, so the entries add up to the week's total_received.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { formatAmount } from "../money.js";
import { hasOutcomeSql } from "./get-stats.js";
import { DAY_MS, STATS_DAYS, statsWindow, utcDate } from "./stats-window.js";

export interface DailyRevenue {
  date: string;
  total_received: string;
}

export async function getDailyStats(ctx: Context): Promise<DailyRevenue[]> {
  const { weekStart, tomorrowStart } = statsWindow(ctx.clock.now());
  const rows = await queryRows<{ day: string; received: string }>(
    ctx.db,
    sql`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
        (coalesce(sum(amount_received) FILTER (WHERE ${hasOutcomeSql}), 0))::text AS received
      FROM orders
      WHERE created_at >= ${weekStart.toISOString()}::timestamptz
        AND created_at < ${tomorrowStart.toISOString()}::timestamptz
      GROUP BY 1`,
  );
  const byDay = new Map(rows.map((row) => [row.day, BigInt(row.received)]));
  return Array.from({ length: STATS_DAYS }, (_, i) => {
    const date = utcDate(new Date(weekStart.getTime() + i * DAY_MS));
    return { date, total_received: formatAmount(byDay.get(date) ?? 0n) };
  });
}
