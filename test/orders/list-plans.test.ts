/**
 * The order lists read their page through an index whatever the filter (SPEC 4.5: status,
 * merchant_id, from, to; and the merchant API's list), already in newest-first order (no sort of
 * the matching rows), and their pagination.total never scans orders: whole days, hours and minutes
 * come from the rollups, the seconds at the ends from an index. Plans are taken on 20,000 orders over 35 days with fresh
 * statistics, on PGlite and PostgreSQL.
 */
import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderStatus } from "../../src/db/schema.js";
import { countOrders, countOrdersSql, type OrderCountFilter } from "../../src/orders/count-orders.js";
import { adminOrdersPageQuery, type AdminOrderFilter } from "../../src/orders/list-admin-orders.js";
import { merchantOrdersWhere } from "../../src/payments/list-orders.js";
import { selectOrdersQuery } from "../../src/payments/merchant-order.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant } from "../payments/helpers.js";

let t: TestApp;
let merchantIds: string[];
const NOW = Date.parse("2026-04-30T15:00:00.000Z");
const DAY = 86_400_000;

beforeAll(async () => {
  t = await createTestApp();
  merchantIds = [];
  for (let i = 0; i < 20; i++) merchantIds.push((await addMerchant(t.ctx)).id);
  await t.ctx.db.execute(sql`
    INSERT INTO orders (id, merchant_id, external_id, amount_expected, amount_received, network, status,
      address, callback_url, expires_at, created_at, updated_at)
    SELECT gen_random_uuid(), (${`{${merchantIds.join(",")}}`}::uuid[])[1 + i % 20], 'ext-' || i, 1000000,
      1000000, 'nile',
      CASE WHEN i % 100 < 85 THEN 'completed' WHEN i % 100 < 95 THEN 'expired' WHEN i % 100 < 97
        THEN 'callback_failed' WHEN i % 100 < 98 THEN 'underpaid' ELSE 'pending' END,
      'TAddr' || i, 'https://shop.example.com/cb', at + interval '30 minutes', at, at
    FROM (
      SELECT i, ${new Date(NOW).toISOString()}::timestamptz - (20000 - i) * interval '151 seconds' AS at
      FROM generate_series(1, 20000) AS i
    ) AS g`);
  // The merchant API reads each listed order's first transfer (confirmations).
  await t.ctx.db.execute(sql`
    INSERT INTO transfers (id, order_id, tx_hash, log_index, block_number, block_hash, block_timestamp,
      from_address, to_address, amount, status, created_at)
    SELECT gen_random_uuid(), id, md5(id::text), 0, 1000, 'h', created_at, 'TFrom', address, 1000000,
      'confirmed', created_at
    FROM orders WHERE status = 'completed'`);
  await t.ctx.db.execute(sql`VACUUM ANALYZE`);
});
afterAll(() => t.close());

async function explain(query: { sql: string; params: unknown[] }): Promise<string> {
  return t.testDb.database.session(async (s) => {
    const { rows } = await s.query<{ "QUERY PLAN": string }>(
      `EXPLAIN (COSTS OFF) ${query.sql}`,
      query.params,
    );
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  });
}

const dialect = new PgDialect();
const toQuery = (expression: SQL) => dialect.sqlToQuery(sql`SELECT (${expression}) AS n`);

/** Every combination of the four SPEC 4.5 filters. */
function combinations(
  status: OrderStatus = "callback_failed",
): { label: string; filter: Omit<AdminOrderFilter, "page" | "limit"> }[] {
  return Array.from({ length: 16 }, (_, mask) => {
    const filter: Omit<AdminOrderFilter, "page" | "limit"> = {};
    if (mask & 1) filter.status = status;
    if (mask & 2) filter.merchantId = merchantIds[3];
    if (mask & 4) filter.from = new Date(NOW - 7 * DAY - 5 * 3_600_000 - 17 * 60_000 - 13_000);
    if (mask & 8) filter.to = new Date(NOW - DAY - 41 * 60_000 - 8_000);
    return { label: Object.keys(filter).join("+") || "none", filter };
  });
}

/** The index a newest-first page of this filter should walk. */
function expectedIndex(filter: { status?: string; merchantId?: string }): string {
  if (filter.status && filter.merchantId) return "orders_merchant_status_created_idx";
  if (filter.status) return "orders_status_created_idx";
  if (filter.merchantId) return "orders_merchant_created_idx";
  return "orders_created_idx";
}

/** The plan without its per-row subplans (the merchant API's first-transfer lookup). */
function pagePart(plan: string): string {
  return plan.split(/\n\s+SubPlan/)[0] as string;
}

/**
 * The page comes through `index`. Ordered by it (no sort) unless the filter matches only a handful
 * of rows, where the planner rightly fetches them through the index and sorts those few.
 */
async function expectIndexedPage(
  plan: string,
  index: string | RegExp,
  filter: OrderCountFilter,
  label: string,
) {
  const page = pagePart(plan);
  expect(page, label).toMatch(
    typeof index === "string" ? new RegExp(`(using|Bitmap Index Scan on) ${index}`) : index,
  );
  expect(page, label).not.toMatch(/Seq Scan on orders/);
  if (/Sort/.test(page)) expect(await countOrders(t.ctx.db, filter), label).toBeLessThanOrEqual(200);
}

describe("order list plans", () => {
  it("the admin list reads each filter combination's page through its index, pre-sorted", async () => {
    for (const { label, filter } of combinations()) {
      const plan = await explain(adminOrdersPageQuery(t.ctx, { ...filter, page: 1, limit: 20 }).toSQL());
      await expectIndexedPage(plan, expectedIndex(filter), filter, label);
    }
    // A status most orders have too: the page's keys come from the status index alone, never from
    // orders_created_idx filtered row by row (which costs a heap visit per newer non-matching order).
    for (const { label, filter } of combinations("completed")) {
      const plan = await explain(adminOrdersPageQuery(t.ctx, { ...filter, page: 1, limit: 20 }).toSQL());
      await expectIndexedPage(plan, expectedIndex(filter), filter, label);
    }
  });

  it("the merchant API list reads its page through the merchant indexes", async () => {
    for (const { label, filter } of combinations().filter((c) => c.filter.merchantId === undefined)) {
      const where = merchantOrdersWhere(merchantIds[5] as string, { ...filter, page: 1, limit: 20 });
      const plan = await explain(selectOrdersQuery(t.ctx.db, where, { limit: 20, offset: 0 }).toSQL());
      const index = expectedIndex({ ...filter, merchantId: merchantIds[5] });
      await expectIndexedPage(plan, index, { ...filter, merchantId: merchantIds[5] }, label);
    }
  });

  it("pagination.total never scans orders: rollups for whole days, hours and minutes, an index for the ends", async () => {
    for (const { label, filter } of [...combinations(), ...combinations("completed")]) {
      const plan = await explain(toQuery(countOrdersSql(filter as OrderCountFilter)));
      expect({ label, plan }).not.toEqual({ label, plan: expect.stringMatching(/Seq Scan on orders\b/) });
      if (filter.from || filter.to) {
        // Whole days, hours and minutes from the rollups; the seconds at the ends through an index.
        expect(plan, label).toMatch(/Index (Only )?Scan using orders_\w+ on orders/);
        expect(plan, label).toMatch(/order_rollups_daily/);
        expect(plan, label).toMatch(/order_rollups_hourly/);
        expect(plan, label).toMatch(/order_rollups_minutely/);
      } else {
        expect(plan).toMatch(/order_rollups_total/);
        expect(plan).not.toMatch(/ on orders\b/);
      }
    }
  });
});
