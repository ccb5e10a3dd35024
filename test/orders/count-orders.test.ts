/**
 * pagination.total from the rollups (daily, hourly, minutely) plus the index-counted seconds at the
 * ends equals a plain count(*) for any combination of status, merchant, external_id, from and to,
 * including ranges that start or end exactly at midnight, an hour or a minute, a millisecond either
 * side of it, either half of a minute, within one minute, and backwards; over days of sparse
 * orders and over one busy hour.
 */
import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import type { OrderStatus } from "../../src/db/schema.js";
import { countOrders, countOrdersSql, type OrderCountFilter } from "../../src/orders/count-orders.js";
import { ORDER_STATUSES } from "../../src/orders/order-statuses.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant } from "../payments/helpers.js";

let t: TestApp;
let merchantIds: string[];
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.parse("2026-02-01T00:00:00.000Z");
const BUSY = Date.parse("2026-02-03T14:00:00.000Z");

beforeAll(async () => {
  t = await createTestApp();
  merchantIds = [];
  for (let i = 0; i < 3; i++) merchantIds.push((await addMerchant(t.ctx)).id);
  // 3,000 orders over 10 days at pseudo-random times, plus some exactly at midnight and at
  // 23:59:59.999, in every status.
  await t.ctx.db.execute(sql`
    INSERT INTO orders (id, merchant_id, external_id, amount_expected, amount_received, network, status,
      address, callback_url, expires_at, created_at, updated_at)
    SELECT gen_random_uuid(), (${`{${merchantIds.join(",")}}`}::uuid[])[1 + i % 3], 'ext-' || i, 1000000,
      (i % 7) * 1000, 'nile',
      (${`{${ORDER_STATUSES.join(",")}}`}::text[])[1 + (i * 7) % ${ORDER_STATUSES.length}],
      'TAddr' || i, 'https://shop.example.com/cb', at + interval '30 minutes', at, at
    FROM (
      SELECT i, CASE
          WHEN i % 50 = 0 THEN ${new Date(START).toISOString()}::timestamptz + (i % 10) * interval '1 day'
          WHEN i % 50 = 1 THEN ${new Date(START).toISOString()}::timestamptz + (i % 10 + 1) * interval '1 day'
            - interval '1 millisecond'
          ELSE ${new Date(START).toISOString()}::timestamptz
            + ((i * 7919) % 864000000) * interval '1 millisecond'
        END AS at
      FROM generate_series(1, 3000) AS i
    ) AS g`);
  // A busy hour: 3,000 more orders within 2026-02-03 14:00-15:00, several per minute, some exactly
  // on a minute boundary.
  await t.ctx.db.execute(sql`
    INSERT INTO orders (id, merchant_id, external_id, amount_expected, amount_received, network, status,
      address, callback_url, expires_at, created_at, updated_at)
    SELECT gen_random_uuid(), (${`{${merchantIds.join(",")}}`}::uuid[])[1 + i % 3], 'busy-' || i, 1000000,
      0, 'nile', (${`{${ORDER_STATUSES.join(",")}}`}::text[])[1 + (i * 5) % ${ORDER_STATUSES.length}],
      'TBusy' || i, 'https://shop.example.com/cb', at + interval '30 minutes', at, at
    FROM (
      SELECT i, ${new Date(BUSY).toISOString()}::timestamptz + CASE
          WHEN i % 40 = 0 THEN (i % 60) * interval '1 minute'
          ELSE ((i * 7919) % 3600000) * interval '1 millisecond'
        END AS at
      FROM generate_series(1, 3000) AS i
    ) AS g`);
});
afterAll(() => t.close());

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

async function plainCount(filter: OrderCountFilter): Promise<number> {
  const parts: SQL[] = [sql`true`];
  if (filter.merchantId) parts.push(sql`merchant_id = ${filter.merchantId}::uuid`);
  if (filter.status) parts.push(sql`status = ${filter.status}`);
  if (filter.externalId) parts.push(sql`external_id = ${filter.externalId}`);
  if (filter.from) parts.push(sql`created_at >= ${filter.from.toISOString()}::timestamptz`);
  if (filter.to) parts.push(sql`created_at <= ${filter.to.toISOString()}::timestamptz`);
  const [row] = await queryRows<{ n: string }>(
    t.ctx.db,
    sql`SELECT count(*)::text AS n FROM orders WHERE ${sql.join(parts, sql` AND `)}`,
  );
  return Number(row?.n);
}

describe("countOrders", () => {
  it(
    "equals count(*) for 600 random filters over 10 days and one busy hour",
    { timeout: 300_000 },
    async () => {
      const next = random(14);
      const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
      const instant = (): Date | undefined => {
        const day = START + Math.floor(next() * 12 - 1) * DAY;
        return pick([
          undefined,
          new Date(day),
          new Date(day - 1),
          new Date(day + 1),
          new Date(day + DAY / 2),
          new Date(day + Math.floor(next() * DAY)),
          new Date(day + Math.floor(next() * DAY)),
          // Hour boundaries, a millisecond either side, and either half of an hour.
          new Date(day + Math.floor(next() * 24) * HOUR),
          new Date(day + Math.floor(next() * 24) * HOUR - 1),
          new Date(day + Math.floor(next() * 24) * HOUR + 1),
          new Date(day + Math.floor(next() * 24) * HOUR + Math.floor(next() * HOUR)),
        ]);
      };
      // Inside the busy hour: minute boundaries, a millisecond either side, either half of a minute.
      const busyInstant = (): Date | undefined => {
        const minute = BUSY + Math.floor(next() * 62 - 1) * MINUTE;
        return pick([
          undefined,
          new Date(minute),
          new Date(minute - 1),
          new Date(minute + 1),
          new Date(minute + Math.floor((next() * MINUTE) / 2)),
          new Date(minute + MINUTE / 2 + Math.floor((next() * MINUTE) / 2)),
          new Date(minute + MINUTE - 1),
        ]);
      };
      let checked = 0;
      for (let i = 0; i < 600; i++) {
        const busy = i % 3 === 2;
        const filter: OrderCountFilter = {
          merchantId: pick([undefined, ...merchantIds]),
          status: pick<OrderStatus | undefined>([undefined, ...ORDER_STATUSES]),
          externalId: next() < 0.05 ? `ext-${Math.floor(next() * 3000)}` : undefined,
          from: busy ? busyInstant() : instant(),
          to: busy ? busyInstant() : instant(),
        };
        const expected = await plainCount(filter);
        expect({ filter, n: await countOrders(t.ctx.db, filter) }).toEqual({ filter, n: expected });
        if (expected > 0) checked++;
      }
      // Not only empty results (about half the random ranges run backwards).
      expect(checked).toBeGreaterThan(60);
    },
  );

  it("counts whole days, whole hours and the minutes at the ends exactly", async () => {
    const filter = { from: new Date(START + DAY), to: new Date(START + 3 * DAY - 1) };
    expect(await countOrders(t.ctx.db, filter)).toBe(await plainCount(filter));
    const partial = { from: new Date(START + DAY + 3_600_000), to: new Date(START + 3 * DAY + 7_200_000) };
    expect(await countOrders(t.ctx.db, partial)).toBe(await plainCount(partial));
    // Within one day: whole hours from the hourly rollups, minutes at the ends from orders.
    const hours = {
      from: new Date(START + DAY + 3 * HOUR + 60_000),
      to: new Date(START + DAY + 9 * HOUR + 1),
    };
    expect(await countOrders(t.ctx.db, hours)).toBe(await plainCount(hours));
    // The last hour of a busy hour: whole minutes from the minutely rollups, seconds from orders.
    for (const range of [
      { from: new Date(BUSY + 7 * MINUTE + 12_345), to: new Date(BUSY + HOUR + 5 * MINUTE + 40_001) },
      { from: new Date(BUSY + 10 * MINUTE + 45_000), to: new Date(BUSY + 50 * MINUTE + 15_000) },
      { from: new Date(BUSY + 3 * MINUTE + 1), to: new Date(BUSY + 4 * MINUTE + 59_999) },
      { from: new Date(BUSY + 3 * MINUTE), to: new Date(BUSY + 3 * MINUTE) },
    ]) {
      expect({ range, n: await countOrders(t.ctx.db, range) }).toEqual({ range, n: await plainCount(range) });
    }
  });

  it("counts at most half a minute of orders at each end of a range inside a busy hour", () => {
    // The statement for [14:07:12.345, 15:05:40.001]: the orders it reads are bounded by created_at
    // ranges of less than 30 s each (the rest comes from rollups).
    const statement = countOrdersSql({
      from: new Date(BUSY + 7 * MINUTE + 12_345),
      to: new Date(BUSY + HOUR + 5 * MINUTE + 40_001),
    });
    const { sql: text, params } = new PgDialect().sqlToQuery(statement);
    expect(text).toContain("order_rollups_minutely");
    const ranges = [
      ...text.matchAll(/created_at (>=|>) \$(\d+)::timestamptz AND created_at (<|<=) \$(\d+)::timestamptz/g),
    ];
    expect(ranges.length).toBe(2);
    for (const [, , a, , b] of ranges) {
      const span = Date.parse(params[Number(b) - 1] as string) - Date.parse(params[Number(a) - 1] as string);
      expect(span).toBeLessThanOrEqual(MINUTE / 2);
    }
  });
});
