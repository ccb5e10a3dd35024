/**
 * pagination.total of the order lists (admin SPEC 4.5 and the merchant API), exact and without
 * counting history. A from/to range is cut into whole UTC days (order_rollups_daily), whole hours
 * of its edge days (order_rollups_hourly) and the partial hours at its very ends, which alone are
 * counted in orders, through the list indexes (index-only). A partial hour is counted from
 * whichever end of the hour is nearer ([hour start, from) is subtracted from the hour's rollup when
 * `from` is early in its hour), so each end costs at most half an hour of orders. Everything is one
 * statement: the rollups and the edge counts come from one snapshot.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import type { OrderStatus } from "../db/schema.js";

export interface OrderCountFilter {
  merchantId?: string | undefined;
  status?: OrderStatus | undefined;
  externalId?: string | undefined;
  /** created_at >= from */
  from?: Date | undefined;
  /** created_at <= to */
  to?: Date | undefined;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const floorTo = (at: number, unit: number) => Math.floor(at / unit) * unit;
const ceilTo = (at: number, unit: number) => Math.ceil(at / unit) * unit;
// A bound at the very end of year 9999 rounds up to year 10000, which ISO strings write as
// "+010000-..." and PostgreSQL cannot parse: such bounds are past every row, so they are infinity.
const YEAR_10000 = Date.UTC(10000, 0, 1);
const ts = (at: number): SQL =>
  at >= YEAR_10000 ? sql`'infinity'::timestamptz` : sql`${new Date(at).toISOString()}::timestamptz`;
/** The UTC wall-clock timestamp the hourly rollup is keyed by. */
const utcHour = (at: number): SQL =>
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

  /** Whole hours [first, end) from the hourly rollups. */
  hours(first: number, end: number): void {
    if (first >= end) return;
    this.parts.push(sql`+ (SELECT coalesce(sum(order_count), 0) FROM order_rollups_hourly
      WHERE ${this.keys} AND hour >= ${utcHour(first)} AND hour < ${utcHour(end)})`);
  }

  /** [from, the next hour): counted directly, or as the hour minus [hour start, from). */
  fromInHour(from: number): void {
    const hour = floorTo(from, HOUR);
    if (from === hour) return;
    if (from - hour < HOUR / 2) {
      this.hours(hour, hour + HOUR);
      this.orders(sql`created_at >= ${ts(hour)} AND created_at < ${ts(from)}`, sql`-`);
    } else {
      this.orders(sql`created_at >= ${ts(from)} AND created_at < ${ts(hour + HOUR)}`);
    }
  }

  /** [hour start, to]: counted directly, or as the hour minus (to, next hour). */
  toInHour(to: number): void {
    const hour = floorTo(to, HOUR);
    if (to - hour >= HOUR / 2) {
      this.hours(hour, hour + HOUR);
      this.orders(sql`created_at > ${ts(to)} AND created_at < ${ts(hour + HOUR)}`, sql`-`);
    } else {
      this.orders(sql`created_at >= ${ts(hour)} AND created_at <= ${ts(to)}`);
    }
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
  if (filter.externalId !== undefined) {
    // (merchant_id, external_id) is unique: at most one row, found through its index.
    const range = [sql`external_id = ${filter.externalId}`];
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
  if (firstDay !== undefined && endDay !== undefined && firstDay >= endDay) {
    // No whole day inside: whole hours, then the partial hours at the ends.
    const firstHour = ceilTo(from as number, HOUR);
    const endHour = floorTo(to as number, HOUR);
    if (firstHour >= endHour) {
      terms.orders(sql`created_at >= ${ts(from as number)} AND created_at <= ${ts(to as number)}`);
    } else {
      terms.fromInHour(from as number);
      terms.hours(firstHour, endHour);
      terms.toInHour(to as number);
    }
    return terms.sum();
  }
  terms.days(firstDay, endDay);
  if (from !== undefined && firstDay !== undefined) {
    terms.fromInHour(from);
    terms.hours(ceilTo(from, HOUR), firstDay);
  }
  if (to !== undefined && endDay !== undefined) {
    terms.hours(endDay, floorTo(to, HOUR));
    terms.toInHour(to);
  }
  return terms.sum();
}

export async function countOrders(db: Executor, filter: OrderCountFilter): Promise<number> {
  const [row] = await queryRows<{ n: string }>(db, sql`SELECT (${countOrdersSql(filter)})::text AS n`);
  return Number(row?.n ?? "0");
}
