/**
 * pagination.total of the order lists (admin SPEC 4.5 and the merchant API), exact and flat in the
 * traffic of the range. A from/to range is cut into whole UTC days (order_rollups_daily), whole
 * hours of its edge days (order_rollups_hourly), whole minutes of its edge hours
 * (order_rollups_minutely, migration 0013) and the partial minutes at its very ends, which alone are
 * counted in orders, through the list indexes (index-only). A partial minute is counted from
 * whichever end of the minute is nearer ([minute start, from) is subtracted from the minute's
 * rollup when `from` is early in its minute), so each end costs at most half a minute of orders,
 * however busy the hour. Everything is one statement: the rollups and the edge counts come from
 * one snapshot.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import type { OrderStatus } from "../db/schema.js";
import type { ChainId, Currency } from "../chains/chain-types.js";

export interface OrderCountFilter {
  merchantId?: string | undefined;
  status?: OrderStatus | undefined;
  externalId?: string | undefined;
  /** The rollups are not kept per chain and currency: these filters count the orders themselves. */
  chain?: ChainId | undefined;
  currency?: Currency | undefined;
  /** created_at >= from */
  from?: Date | undefined;
  /** created_at <= to */
  to?: Date | undefined;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const floorTo = (at: number, unit: number) => Math.floor(at / unit) * unit;
const ceilTo = (at: number, unit: number) => Math.ceil(at / unit) * unit;
// A bound at the very end of year 9999 rounds up to year 10000, which ISO strings write as
// "+010000-..." and PostgreSQL cannot parse: such bounds are past every row, so they are infinity.
const YEAR_10000 = Date.UTC(10000, 0, 1);
const ts = (at: number): SQL =>
  at >= YEAR_10000 ? sql`'infinity'::timestamptz` : sql`${new Date(at).toISOString()}::timestamptz`;
/** The UTC wall-clock timestamp the hourly and minutely rollups are keyed by. */
const utcTimestamp = (at: number): SQL =>
  at >= YEAR_10000 ? sql`'infinity'::timestamp` : sql`${new Date(at).toISOString().slice(0, 19)}::timestamp`;
const utcDay = (at: number): SQL =>
  at >= YEAR_10000 ? sql`'infinity'::date` : sql`${new Date(at).toISOString().slice(0, 10)}::date`;

/** The merchant/status conditions, which apply to rollup rows and orders alike. */
function keyConditions(filter: OrderCountFilter): SQL {
  const parts: SQL[] = [sql`true`];
  if (filter.merchantId !== undefined) parts.push(sql`merchant_id = ${filter.merchantId}::uuid`);
  if (filter.status !== undefined) parts.push(sql`status = ${filter.status}`);
  return sql.join(parts, sql` AND `);
}

/** The rollup levels below the daily one, coarsest first. */
const LEVELS = [
  { unit: HOUR, table: sql`order_rollups_hourly`, column: sql`hour` },
  { unit: MINUTE, table: sql`order_rollups_minutely`, column: sql`minute` },
] as const;

class Terms {
  readonly parts: SQL[] = [];
  constructor(private readonly keys: SQL) {}

  /** Orders with created_at in `range`, counted in orders. */
  orders(range: SQL, sign = sql`+`): void {
    this.parts.push(sql`${sign} (SELECT count(*) FROM orders WHERE ${this.keys} AND ${range})`);
  }

  /** Whole days [first, end) from the daily rollups; either side open when undefined. */
  days(first: number | undefined, end: number | undefined): void {
    const parts = [this.keys];
    if (first !== undefined) parts.push(sql`day >= ${utcDay(first)}`);
    if (end !== undefined) parts.push(sql`day < ${utcDay(end)}`);
    this.parts.push(
      sql`+ (SELECT coalesce(sum(order_count), 0) FROM order_rollups_daily WHERE ${sql.join(parts, sql` AND `)})`,
    );
  }

  /** Whole units [first, end) of rollup level `level`. */
  units(level: number, first: number, end: number): void {
    if (first >= end) return;
    const { table, column } = LEVELS[level] as (typeof LEVELS)[number];
    this.parts.push(sql`+ (SELECT coalesce(sum(order_count), 0) FROM ${table}
      WHERE ${this.keys} AND ${column} >= ${utcTimestamp(first)} AND ${column} < ${utcTimestamp(end)})`);
  }

  /** [from, the next minute): counted directly, or as the minute minus [minute start, from). */
  fromInMinute(from: number): void {
    const minute = floorTo(from, MINUTE);
    if (from === minute) return;
    if (from - minute < MINUTE / 2) {
      this.units(LEVELS.length - 1, minute, minute + MINUTE);
      this.orders(sql`created_at >= ${ts(minute)} AND created_at < ${ts(from)}`, sql`-`);
    } else {
      this.orders(sql`created_at >= ${ts(from)} AND created_at < ${ts(minute + MINUTE)}`);
    }
  }

  /** [minute start, to]: counted directly, or as the minute minus (to, next minute). */
  toInMinute(to: number): void {
    const minute = floorTo(to, MINUTE);
    if (to - minute >= MINUTE / 2) {
      this.units(LEVELS.length - 1, minute, minute + MINUTE);
      this.orders(sql`created_at > ${ts(to)} AND created_at < ${ts(minute + MINUTE)}`, sql`-`);
    } else {
      this.orders(sql`created_at >= ${ts(minute)} AND created_at <= ${ts(to)}`);
    }
  }

  /** [from, upTo), upTo a boundary of the level above `level`: whole units, then finer ones. */
  leftEdge(from: number, upTo: number, level = 0): void {
    if (level === LEVELS.length) return this.fromInMinute(from);
    const first = ceilTo(from, (LEVELS[level] as (typeof LEVELS)[number]).unit);
    this.units(level, first, upTo);
    this.leftEdge(from, first, level + 1);
  }

  /** [startAt, to], startAt a boundary of the level above `level`: whole units, then finer ones. */
  rightEdge(startAt: number, to: number, level = 0): void {
    if (level === LEVELS.length) return this.toInMinute(to);
    const end = floorTo(to, (LEVELS[level] as (typeof LEVELS)[number]).unit);
    this.units(level, startAt, end);
    this.rightEdge(end, to, level + 1);
  }

  /** [from, to] with no whole day inside: the coarsest level with whole units inside, then the edges. */
  within(from: number, to: number, level = 0): void {
    if (level === LEVELS.length) {
      // Less than two minutes: counted in orders.
      return this.orders(sql`created_at >= ${ts(from)} AND created_at <= ${ts(to)}`);
    }
    const unit = (LEVELS[level] as (typeof LEVELS)[number]).unit;
    const first = ceilTo(from, unit);
    const end = floorTo(to, unit);
    if (first >= end) return this.within(from, to, level + 1);
    this.units(level, first, end);
    this.leftEdge(from, first, level + 1);
    this.rightEdge(end, to, level + 1);
  }

  sum(): SQL {
    return this.parts.length === 0 ? sql`0` : sql`0 ${sql.join(this.parts, sql` `)}`;
  }
}

/** The SQL expression of the count; exported for the plan test. */
export function countOrdersSql(filter: OrderCountFilter): SQL {
  const keys = keyConditions(filter);
  const from = filter.from?.getTime();
  const to = filter.to?.getTime();
  const direct: SQL[] = [];
  if (filter.externalId !== undefined) direct.push(sql`external_id = ${filter.externalId}`);
  if (filter.chain !== undefined) direct.push(sql`chain = ${filter.chain}`);
  if (filter.currency !== undefined) direct.push(sql`currency = ${filter.currency}`);
  if (direct.length > 0) {
    // (merchant_id, external_id) is unique: at most one row, found through its index. A chain or
    // currency filter counts the matching orders (the rollups have neither column).
    const range = direct;
    if (from !== undefined) range.push(sql`created_at >= ${ts(from)}`);
    if (to !== undefined) range.push(sql`created_at <= ${ts(to)}`);
    return sql`(SELECT count(*) FROM orders WHERE ${keys} AND ${sql.join(range, sql` AND `)})`;
  }
  if (from === undefined && to === undefined) {
    return sql`(SELECT coalesce(sum(order_count), 0) FROM order_rollups_total WHERE ${keys})`;
  }
  if (from !== undefined && to !== undefined && to < from) return sql`0`;
  const terms = new Terms(keys);
  const firstDay = from === undefined ? undefined : ceilTo(from, DAY);
  const endDay = to === undefined ? undefined : floorTo(to, DAY);
  if (from !== undefined && to !== undefined && (firstDay as number) >= (endDay as number)) {
    terms.within(from, to);
    return terms.sum();
  }
  terms.days(firstDay, endDay);
  if (from !== undefined && firstDay !== undefined) terms.leftEdge(from, firstDay);
  if (to !== undefined && endDay !== undefined) terms.rightEdge(endDay, to);
  return terms.sum();
}
export async function countOrders(db: Executor, filter: OrderCountFilter): Promise<number> {
  const [row] = await queryRows<{ n: string }>(db, sql`SELECT (${countOrdersSql(filter)})::text AS n`);
  return Number(row?.n ?? "0");
}
