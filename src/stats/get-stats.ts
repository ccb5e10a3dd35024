/**
 * GET /api/v1/admin/stats (DESIGN.md 8). For each window: order_count = orders created in it,
 * completed_count = those of them now completed, total_received = the confirmed amount_received of
 * those of them with an outcome, success_rate = completed / order_count x 100 in integer math.
 * Beside them (docs/operators.md, "Success rate"): final_count = those with a final outcome (an
 * outcome status or expired), paid_in_full_count = those of them paid exactly or over,
 * expired_count, and paid_in_full_rate = paid_in_full_count / final_count x 100.
 *
 * Read from the rollups (migrations 0004 and 0028), not from orders: today and the week sum the daily rows of
 * at most 7 days (merchants x statuses per day), the total sums order_rollups_total (merchants x
 * statuses), so the cost does not grow with history.
 *
 * Per chain and currency (migration 0033; issue 39 part 8): the `chain` and `currency` filters narrow
 * the order figures (today, week, total and the breakdown) to the rollup rows of that chain and/or
 * currency; `by_chain_currency` answers the same three blocks for each (chain, currency) that has
 * orders or is enabled; `currencies` names the currencies the top-level total_received amounts add
 * up, so a sum across USDT and USDC is never shown without saying so. The deposit figures are read
 * the same way from the deposit rollups (migration 0038): narrowed by the same filters, with their
 * own breakdown and currencies. The address pool and strays are not narrowed (docs/operators.md,
 * "Stats per chain and currency").
 */
import { sql, type SQL } from "drizzle-orm";
import type { ChainId, Currency } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { formatAmount } from "../money.js";
import { STATUSES_WITH_OUTCOME } from "../orders/transitions.js";
import { formatPercent } from "../percent.js";
import {
  getAddressPoolCounts,
  getFamilyPoolCounts,
  type AddressPoolCounts,
  type FamilyPoolCounts,
} from "../wallet/get-address-pool-counts.js";
import { statsWindow, utcDate } from "./stats-window.js";

export interface StatsBlock {
  order_count: number;
  completed_count: number;
  total_received: string;
  success_rate: string;
  /** Orders with a final outcome: an outcome status or expired (not pending, detected, cancelled). */
  final_count: number;
  /** Those of them whose amount_received reaches amount_expected (exact or overpaid). */
  paid_in_full_count: number;
  /** Those of them that expired unpaid. */
  expired_count: number;
  /** paid_in_full_count / final_count x 100, two decimals. */
  paid_in_full_rate: string;
}

/** Confirmed deposits to static addresses (DESIGN.md 15) detected in a window, and their sum. */
export interface DepositStatsBlock {
  deposit_count: number;
  total_received: string;
}

/** The filters of GET /admin/stats and /stats/daily: none, a chain, a currency or both. */
export interface StatsFilter {
  chain?: ChainId | undefined;
  currency?: Currency | undefined;
}

/** One (chain, currency) of the breakdown: its own three blocks, never summed with another currency. */
export interface ChainCurrencyStats {
  chain: string;
  currency: string;
  today: StatsBlock;
  week: StatsBlock;
  total: StatsBlock;
}

export interface AdminStats {
  /** The currencies whose amounts the top-level total_received figures add up, sorted. */
  currencies: string[];
  by_chain_currency: ChainCurrencyStats[];
  today: StatsBlock;
  week: StatsBlock;
  total: StatsBlock & { merchant_count: number };
  address_pool: AddressPoolCounts;
  /** Each chain family's pool (tron, evm); address_pool is their sum. */
  address_pools: FamilyPoolCounts[];
  /**
   * Stray transfers (DESIGN.md 4), from stray_rollups: all, and those still unresolved; and the dust
   * their sweeps left below SWEEP_MIN_USDT (each such address stays out of the pool until it is swept).
   */
  stray_transfers: {
    count: number;
    amount: string;
    unresolved_count: number;
    unresolved_amount: string;
    dust_addresses: number;
    dust_amount: string;
  };
  deposits: DepositStats;
}

/** One (chain, currency) of the deposits' breakdown. */
export interface ChainCurrencyDepositStats {
  chain: string;
  currency: string;
  today: DepositStatsBlock;
  week: DepositStatsBlock;
  total: DepositStatsBlock;
}

/** Confirmed deposits to static addresses, narrowed by the stats filter. */
export interface DepositStats {
  today: DepositStatsBlock;
  week: DepositStatsBlock;
  total: DepositStatsBlock;
  /** The currencies of the confirmed deposits the amounts above add up, sorted. */
  currencies: string[];
  /** The same blocks for each (chain, currency) with confirmed deposits. */
  by_chain_currency: ChainCurrencyDepositStats[];
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
  const final = BigInt(row[`${prefix}_final`] ?? "0");
  const paidInFull = BigInt(row[`${prefix}_full`] ?? "0");
  return {
    order_count: Number(orderCount),
    completed_count: Number(completed),
    total_received: formatAmount(BigInt(row[`${prefix}_received`] ?? "0")),
    success_rate: formatPercent(completed, orderCount),
    final_count: Number(final),
    paid_in_full_count: Number(paidInFull),
    expired_count: Number(row[`${prefix}_expired`] ?? "0"),
    paid_in_full_rate: formatPercent(paidInFull, final),
  };
}

/** The block's counts and total_received from the rollup rows matching `where`. */
function figures(name: string, where: ReturnType<typeof sql>) {
  const col = (suffix: string) => sql.raw(`${name}_${suffix}`);
  return sql`
    (coalesce(sum(order_count) FILTER (WHERE ${where} AND (${hasOutcomeSql} OR status = 'expired')), 0))::text
      AS ${col("final")},
    (coalesce(sum(paid_in_full_count) FILTER (WHERE ${where} AND ${hasOutcomeSql}), 0))::text AS ${col("full")},
    (coalesce(sum(order_count) FILTER (WHERE ${where} AND status = 'expired'), 0))::text AS ${col("expired")},
    (coalesce(sum(order_count) FILTER (WHERE ${where}), 0))::text AS ${sql.raw(`${name}_orders`)},
    (coalesce(sum(order_count) FILTER (WHERE ${where} AND status = 'completed'), 0))::text
      AS ${sql.raw(`${name}_completed`)},
    (coalesce(sum(amount_received) FILTER (WHERE ${where} AND ${hasOutcomeSql}), 0))::text
      AS ${sql.raw(`${name}_received`)}`;
}

/** The rollup rows of the filter's chain and currency (`true` without a filter). */
export function rollupFilterSql(filter: StatsFilter): SQL {
  const parts: SQL[] = [sql`true`];
  if (filter.chain !== undefined) parts.push(sql`chain = ${filter.chain}`);
  if (filter.currency !== undefined) parts.push(sql`currency = ${filter.currency}`);
  return sql.join(parts, sql` AND `);
}

/** Each enabled chain's currencies, as (chain, currency) keys. */
function enabledPairs(ctx: Context): string[] {
  return ctx.chains.list.flatMap((chain) => chain.currencies.map((currency) => `${chain.id}/${currency}`));
}

export async function getStats(ctx: Context, filter: StatsFilter = {}): Promise<AdminStats> {
  const { todayStart, weekStart, tomorrowStart } = statsWindow(ctx.clock.now());
  const today = utcDate(todayStart);
  const where = rollupFilterSql(filter);
  const inWeek = sql`day >= ${utcDate(weekStart)}::date AND day < ${utcDate(tomorrowStart)}::date AND ${where}`;
  const [recentRows, totalRows, addressPool, addressPools, depositStats, [strays], [dust], [merchants]] =
    await Promise.all([
      queryRows<Row>(
        ctx.db,
        sql`SELECT chain, currency, ${figures("today", sql`day = ${today}::date`)}, ${figures("week", sql`true`)}
        FROM order_rollups_daily WHERE ${inWeek}
        GROUP BY chain, currency`,
      ),
      queryRows<Row>(
        ctx.db,
        sql`SELECT chain, currency, ${figures("total", sql`true`)}, bool_or(order_count <> 0)::text AS has_orders
        FROM order_rollups_total WHERE ${where}
        GROUP BY chain, currency`,
      ),
      getAddressPoolCounts(ctx),
      getFamilyPoolCounts(ctx),
      getDepositStats(ctx, filter, today, utcDate(weekStart), utcDate(tomorrowStart)),

      queryRows<Row>(
        ctx.db,
        sql`SELECT coalesce(sum(n), 0)::text AS n, coalesce(sum(amount), 0)::text AS amount,
            coalesce(sum(n) FILTER (WHERE resolution = 'unresolved'), 0)::text AS open_n,
            coalesce(sum(amount) FILTER (WHERE resolution = 'unresolved'), 0)::text AS open_amount
          FROM stray_rollups`,
      ),
      // One address-level settlement per address (settlements_address_level_idx): its last round.
      queryRows<Row>(
        ctx.db,
        sql`SELECT count(*)::text AS n, coalesce(sum(amount), 0)::text AS amount FROM settlements
          WHERE order_id IS NULL AND status = 'completed' AND step = 'below_minimum' AND amount > 0
            AND NOT EXISTS (SELECT 1 FROM addresses a WHERE a.id = settlements.address_id AND a.status = 'static')`,
      ),
      queryRows<Row>(ctx.db, sql`SELECT count(*)::text AS n FROM merchants`),
    ]);
  const keyOf = (row: Row) => `${row.chain}/${row.currency}`;
  const recentByKey = new Map(recentRows.map((row) => [keyOf(row), row]));
  const totalByKey = new Map(totalRows.map((row) => [keyOf(row), row]));
  const matches = (key: string) => {
    const [chain, currency] = key.split("/");
    return (
      (filter.chain === undefined || filter.chain === chain) &&
      (filter.currency === undefined || filter.currency === currency)
    );
  };
  const keys = [
    ...new Set([...enabledPairs(ctx).filter(matches), ...recentByKey.keys(), ...totalByKey.keys()]),
  ].sort();
  const breakdown = keys.map((key) => {
    const [chain = "", currency = ""] = key.split("/");
    const recent = recentByKey.get(key) ?? {};
    return {
      chain,
      currency,
      today: block(recent, "today"),
      week: block(recent, "week"),
      total: block(totalByKey.get(key) ?? {}, "total"),
    };
  });
  // The top-level blocks: the breakdown's rows added up, in integers (amounts of every listed currency).
  const sumRows = (rows: Row[], prefixes: string[]): Row => {
    const out: Row = {};
    for (const row of rows)
      for (const prefix of prefixes)
        for (const suffix of ["orders", "completed", "received", "final", "full", "expired"]) {
          const name = `${prefix}_${suffix}`;
          out[name] = (BigInt(out[name] ?? "0") + BigInt(row[name] ?? "0")).toString();
        }
    return out;
  };
  const recent = sumRows(recentRows, ["today", "week"]);
  const total = sumRows(totalRows, ["total"]);
  const currencies = [
    ...new Set(totalRows.filter((row) => row.has_orders === "true").map((row) => row.currency as string)),
  ].sort();
  return {
    currencies,
    by_chain_currency: breakdown,
    today: block(recent, "today"),
    week: block(recent, "week"),
    total: { ...block(total, "total"), merchant_count: Number(merchants?.n ?? "0") },
    address_pool: addressPool,
    address_pools: addressPools,
    stray_transfers: {
      count: Number(strays?.n ?? "0"),
      amount: formatAmount(BigInt(strays?.amount ?? "0")),
      unresolved_count: Number(strays?.open_n ?? "0"),
      unresolved_amount: formatAmount(BigInt(strays?.open_amount ?? "0")),
      dust_addresses: Number(dust?.n ?? "0"),
      dust_amount: formatAmount(BigInt(dust?.amount ?? "0")),
    },
    deposits: depositStats,
  };
}

/**
 * From the deposit rollups (migrations 0012 and 0038), like the order figures: confirmed deposits
 * only, per (chain, currency) of the filter, and their sum.
 */
async function getDepositStats(
  ctx: Context,
  filter: StatsFilter,
  today: string,
  weekStart: string,
  tomorrowStart: string,
): Promise<DepositStats> {
  const where = rollupFilterSql(filter);
  const [recentRows, totalRows] = await Promise.all([
    queryRows<Row>(
      ctx.db,
      sql`SELECT chain, currency,
                 coalesce(sum(deposit_count) FILTER (WHERE day = ${today}::date), 0)::text AS today_n,
                 coalesce(sum(amount) FILTER (WHERE day = ${today}::date), 0)::text AS today_amount,
                 coalesce(sum(deposit_count), 0)::text AS week_n, coalesce(sum(amount), 0)::text AS week_amount
          FROM deposit_rollups_daily
          WHERE status = 'confirmed' AND day >= ${weekStart}::date AND day < ${tomorrowStart}::date AND ${where}
          GROUP BY chain, currency`,
    ),
    queryRows<Row>(
      ctx.db,
      sql`SELECT chain, currency,
                 coalesce(sum(deposit_count), 0)::text AS total_n, coalesce(sum(amount), 0)::text AS total_amount
          FROM deposit_rollups_total WHERE status = 'confirmed' AND ${where}
          GROUP BY chain, currency`,
    ),
  ]);
  const depositBlock = (rows: Row[], prefix: string): DepositStatsBlock => {
    let n = 0n;
    let amount = 0n;
    for (const row of rows) {
      n += BigInt(row[`${prefix}_n`] ?? "0");
      amount += BigInt(row[`${prefix}_amount`] ?? "0");
    }
    return { deposit_count: Number(n), total_received: formatAmount(amount) };
  };
  const keyOf = (row: Row) => `${row.chain}/${row.currency}`;
  // A (chain, currency) whose counters are all zero (every deposit reverted) has no deposits.
  const held = totalRows.filter((row) => row.total_n !== "0");
  const keys = [...new Set([...recentRows.filter((row) => row.week_n !== "0"), ...held].map(keyOf))].sort();
  const rowsOf = (rows: Row[], key: string) => rows.filter((row) => keyOf(row) === key);
  return {
    today: depositBlock(recentRows, "today"),
    week: depositBlock(recentRows, "week"),
    total: depositBlock(totalRows, "total"),
    currencies: [...new Set(held.map((row) => row.currency as string))].sort(),
    by_chain_currency: keys.map((key) => {
      const [chain = "", currency = ""] = key.split("/");
      return {
        chain,
        currency,
        today: depositBlock(rowsOf(recentRows, key), "today"),
        week: depositBlock(rowsOf(recentRows, key), "week"),
        total: depositBlock(rowsOf(totalRows, key), "total"),
      };
    }),
  };
}
