/**
 * pagination.total of the order lists (admin SPEC 4.5 and the merchant API), exact and without
 * counting history: whole UTC days come from the rollups (migration 0004); only the partial days at
 * the edges of a from/to range are counted in orders, through the list indexes (index-only). An
 * edge is counted from whichever end of its day is nearer: [day start, from) is subtracted from the
 * day's rollup when `from` is early in its day, so an edge costs at most half a day of orders.
 * Everything is one statement, so the rollups and the edge counts come from one snapshot.
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

const DAY_MS = 86_400_000;
const HALF_DAY_MS = DAY_MS / 2;

function dayStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

function addDays(at: Date, days: number): Date {
  return new Date(at.getTime() + days * DAY_MS);
}

function isoDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

function ts(at: Date): SQL {
  return sql`${at.toISOString()}::timestamptz`;
}

/** The merchant/status conditions, which apply to rollup rows and orders alike. */
function keyConditions(filter: OrderCountFilter): SQL {
  const parts: SQL[] = [sql`true`];
  if (filter.merchantId !== undefined) parts.push(sql`merchant_id = ${filter.merchantId}::uuid`);
  if (filter.status !== undefined) parts.push(sql`status = ${filter.status}`);
  return sql.join(parts, sql` AND `);
}

/** Orders matching the key conditions with created_at in the given range. */
function countRange(keys: SQL, range: SQL): SQL {
  return sql`(SELECT count(*) FROM orders WHERE ${keys} AND ${range})`;
}

/** Orders of whole days [first, end) (either side open when undefined), from the rollups. */
function rollupDays(keys: SQL, first: Date | undefined, end: Date | undefined): SQL {
  const parts = [keys];
  if (first !== undefined) parts.push(sql`day >= ${isoDate(first)}::date`);
  if (end !== undefined) parts.push(sql`day < ${isoDate(end)}::date`);
  return sql`(SELECT coalesce(sum(order_count), 0) FROM order_rollups_daily WHERE ${sql.join(parts, sql` AND `)})`;
}

/** The SQL expression of the count; exported for the plan test. */
export function countOrdersSql(filter: OrderCountFilter): SQL {
  const keys = keyConditions(filter);
  const { from, to } = filter;
  if (filter.externalId !== undefined) {
    // (merchant_id, external_id) is unique: at most one row, found through its index.
    const range = [sql`external_id = ${filter.externalId}`];
    if (from !== undefined) range.push(sql`created_at >= ${ts(from)}`);
    if (to !== undefined) range.push(sql`created_at <= ${ts(to)}`);
    return countRange(keys, sql.join(range, sql` AND `));
  }
  if (from === undefined && to === undefined) {
    return sql`(SELECT coalesce(sum(order_count), 0) FROM order_rollups_total WHERE ${keys})`;
  }
  const fromDay = from === undefined ? undefined : dayStart(from);
  const firstWhole =
    from === undefined || fromDay === undefined
      ? undefined
      : from.getTime() === fromDay.getTime()
        ? fromDay
        : addDays(fromDay, 1);
  const toDay = to === undefined ? undefined : dayStart(to);
  if (from !== undefined && to !== undefined && firstWhole !== undefined && toDay !== undefined) {
    if (to.getTime() < from.getTime()) return sql`0`;
    // Less than a whole day in between: the range itself is at most two partial days.
    if (firstWhole.getTime() >= toDay.getTime()) {
      return countRange(keys, sql`created_at >= ${ts(from)} AND created_at <= ${ts(to)}`);
    }
  }
  const terms: SQL[] = [rollupDays(keys, firstWhole, toDay)];
  if (from !== undefined && fromDay !== undefined && from.getTime() !== fromDay.getTime()) {
    // [from, next day start)
    terms.push(
      from.getTime() - fromDay.getTime() < HALF_DAY_MS
        ? sql`${rollupDays(keys, fromDay, addDays(fromDay, 1))} - ${countRange(
            keys,
            sql`created_at >= ${ts(fromDay)} AND created_at < ${ts(from)}`,
          )}`
        : countRange(keys, sql`created_at >= ${ts(from)} AND created_at < ${ts(addDays(fromDay, 1))}`),
    );
  }
  if (to !== undefined && toDay !== undefined) {
    // [day start of to, to]
    const nextDay = addDays(toDay, 1);
    terms.push(
      to.getTime() - toDay.getTime() >= HALF_DAY_MS
        ? sql`${rollupDays(keys, toDay, nextDay)} - ${countRange(
            keys,
            sql`created_at > ${ts(to)} AND created_at < ${ts(nextDay)}`,
          )}`
        : countRange(keys, sql`created_at >= ${ts(toDay)} AND created_at <= ${ts(to)}`),
    );
  }
  return sql.join(terms, sql` + `);
}

export async function countOrders(db: Executor, filter: OrderCountFilter): Promise<number> {
  const [row] = await queryRows<{ n: string }>(db, sql`SELECT (${countOrdersSql(filter)})::text AS n`);
  return Number(row?.n ?? "0");
}
