/**
 * GET /api/v1/admin/stats (DESIGN.md 8). For each window: order_count = orders created in it,
 * completed_count = those of them now completed, total_received = the confirmed amount_received of
 * those of them with an outcome, success_rate = completed / order_count x 100 in integer math.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { formatAmount } from "../money.js";
import { STATUSES_WITH_OUTCOME } from "../orders/transitions.js";
import { formatPercent } from "../percent.js";
import { getAddressPoolCounts, type AddressPoolCounts } from "../wallet/get-address-pool-counts.js";
import { statsWindow } from "./stats-window.js";

export interface StatsBlock {
  order_count: number;
  completed_count: number;
  total_received: string;
  success_rate: string;
}

export interface AdminStats {
  today: StatsBlock;
  week: StatsBlock;
  total: StatsBlock & { merchant_count: number };
  address_pool: AddressPoolCounts;
}

/** `status IN (...)` of the statuses whose amount_received is confirmed. */
export const hasOutcomeSql = sql`status IN (${sql.join(
  STATUSES_WITH_OUTCOME.map((status) => sql`${status}`),
  sql`, `,
)})`;

interface Row extends Record<string, unknown> {
  [key: string]: string;
}

function block(row: Row, prefix: string): StatsBlock {
  const orderCount = BigInt(row[`${prefix}_orders`] ?? "0");
  const completed = BigInt(row[`${prefix}_completed`] ?? "0");
  return {
    order_count: Number(orderCount),
    completed_count: Number(completed),
    total_received: formatAmount(BigInt(row[`${prefix}_received`] ?? "0")),
    success_rate: formatPercent(completed, orderCount),
  };
}

export async function getStats(ctx: Context): Promise<AdminStats> {
  const { todayStart, weekStart, tomorrowStart } = statsWindow(ctx.clock.now());
  const windowSql = (start: Date) =>
    sql`created_at >= ${start.toISOString()}::timestamptz AND created_at < ${tomorrowStart.toISOString()}::timestamptz`;
  const figures = (name: string, where: ReturnType<typeof sql>) => sql`
    (count(*) FILTER (WHERE ${where}))::text AS ${sql.raw(`${name}_orders`)},
    (count(*) FILTER (WHERE ${where} AND status = 'completed'))::text AS ${sql.raw(`${name}_completed`)},
    (coalesce(sum(amount_received) FILTER (WHERE ${where} AND ${hasOutcomeSql}), 0))::text
      AS ${sql.raw(`${name}_received`)}`;
  const [[row], addressPool] = await Promise.all([
    queryRows<Row>(
      ctx.db,
      sql`SELECT ${figures("today", windowSql(todayStart))}, ${figures("week", windowSql(weekStart))},
        ${figures("total", sql`true`)}, (SELECT count(*) FROM merchants)::text AS merchant_count
      FROM orders`,
    ),
    getAddressPoolCounts(ctx),
  ]);
  const figuresRow = row ?? {};
  return {
    today: block(figuresRow, "today"),
    week: block(figuresRow, "week"),
    total: { ...block(figuresRow, "total"), merchant_count: Number(figuresRow.merchant_count ?? "0") },
    address_pool: addressPool,
  };
}
