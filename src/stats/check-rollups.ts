/**
 * `stablegate check-rollups`: recounts every rollup (migration 0004) from orders and order_events
 * and lists each key whose stored counters differ. A missing rollup row equals one holding zeros.
 * Reads everything: an operator's check, not a request path. Each part runs in one statement, so it
 * compares the rollups and the orders of one snapshot even while orders keep changing.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";

export interface RollupDifference {
  table:
    | "order_rollups_daily"
    | "order_rollups_hourly"
    | "order_rollups_total"
    | "merchant_incidents"
    | "deposit_rollups_daily"
    | "deposit_rollups_total"
    | "addresses";
  /** The key: day or hour/merchant_id/status, merchant_id/status, or merchant_id. */
  key: Record<string, string>;
  /** [order_count, amount_received] or [incident_count], as stored and as recounted. */
  stored: string[];
  actual: string[];
}

interface DiffRow extends Record<string, unknown> {
  day?: string;
  hour?: string;
  merchant_id: string;
  status?: string;
  stored_n: string;
  actual_n: string;
  stored_amount?: string;
  actual_amount?: string;
}

const DAILY = sql`
  WITH actual AS (
    SELECT (created_at AT TIME ZONE 'UTC')::date AS day, merchant_id, status,
           count(*) AS n, sum(amount_received) AS amount
    FROM orders GROUP BY 1, 2, 3
  )
  SELECT to_char(coalesce(a.day, r.day), 'YYYY-MM-DD') AS day,
         coalesce(a.merchant_id, r.merchant_id)::text AS merchant_id,
         coalesce(a.status, r.status) AS status,
         coalesce(r.order_count, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n,
         coalesce(r.amount_received, 0)::text AS stored_amount, coalesce(a.amount, 0)::text AS actual_amount
  FROM actual a FULL JOIN order_rollups_daily r
    ON r.day = a.day AND r.merchant_id = a.merchant_id AND r.status = a.status
  WHERE coalesce(r.order_count, 0) <> coalesce(a.n, 0)
     OR coalesce(r.amount_received, 0) <> coalesce(a.amount, 0)
  ORDER BY 1, 2, 3`;

const HOURLY = sql`
  WITH actual AS (
    SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC') AS hour, merchant_id, status, count(*) AS n
    FROM orders GROUP BY 1, 2, 3
  )
  SELECT to_char(coalesce(a.hour, r.hour), 'YYYY-MM-DD"T"HH24') AS hour,
         coalesce(a.merchant_id, r.merchant_id)::text AS merchant_id,
         coalesce(a.status, r.status) AS status,
         coalesce(r.order_count, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n
  FROM actual a FULL JOIN order_rollups_hourly r
    ON r.hour = a.hour AND r.merchant_id = a.merchant_id AND r.status = a.status
  WHERE coalesce(r.order_count, 0) <> coalesce(a.n, 0)
  ORDER BY 1, 2, 3`;

const TOTAL = sql`
  WITH actual AS (
    SELECT merchant_id, status, count(*) AS n, sum(amount_received) AS amount
    FROM orders GROUP BY 1, 2
  )
  SELECT coalesce(a.merchant_id, r.merchant_id)::text AS merchant_id,
         coalesce(a.status, r.status) AS status,
         coalesce(r.order_count, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n,
         coalesce(r.amount_received, 0)::text AS stored_amount, coalesce(a.amount, 0)::text AS actual_amount
  FROM actual a FULL JOIN order_rollups_total r ON r.merchant_id = a.merchant_id AND r.status = a.status
  WHERE coalesce(r.order_count, 0) <> coalesce(a.n, 0)
     OR coalesce(r.amount_received, 0) <> coalesce(a.amount, 0)
  ORDER BY 1, 2`;

// Compares the incident rows themselves (event, merchant, time), then reports per merchant.
const INCIDENTS = sql`
  WITH actual AS (
    SELECT e.id AS event_id, o.merchant_id, e.created_at
    FROM order_events e JOIN orders o ON o.id = e.order_id
    WHERE e.event_type IN ('webhook_failed', 'sweep_failed')
  ), wrong AS (
    SELECT coalesce(a.merchant_id, m.merchant_id) AS merchant_id
    FROM actual a FULL JOIN merchant_incidents m ON m.event_id = a.event_id
    WHERE a.event_id IS NULL OR m.event_id IS NULL
       OR (a.merchant_id, a.created_at) IS DISTINCT FROM (m.merchant_id, m.created_at)
  )
  SELECT w.merchant_id::text AS merchant_id,
         (SELECT count(*) FROM merchant_incidents m WHERE m.merchant_id = w.merchant_id)::text AS stored_n,
         (SELECT count(*) FROM actual a WHERE a.merchant_id = w.merchant_id)::text AS actual_n
  FROM (SELECT DISTINCT merchant_id FROM wrong) AS w
  ORDER BY 1`;

const DEPOSITS_DAILY = sql`
  WITH actual AS (
    SELECT (created_at AT TIME ZONE 'UTC')::date AS day, merchant_id, status, count(*) AS n, sum(amount) AS amount
    FROM deposits GROUP BY 1, 2, 3
  )
  SELECT to_char(coalesce(a.day, r.day), 'YYYY-MM-DD') AS day,
         coalesce(a.merchant_id, r.merchant_id)::text AS merchant_id,
         coalesce(a.status, r.status) AS status,
         coalesce(r.deposit_count, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n,
         coalesce(r.amount, 0)::text AS stored_amount, coalesce(a.amount, 0)::text AS actual_amount
  FROM actual a FULL JOIN deposit_rollups_daily r
    ON r.day = a.day AND r.merchant_id = a.merchant_id AND r.status = a.status
  WHERE coalesce(r.deposit_count, 0) <> coalesce(a.n, 0) OR coalesce(r.amount, 0) <> coalesce(a.amount, 0)
  ORDER BY 1, 2, 3`;

const DEPOSITS_TOTAL = sql`
  WITH actual AS (
    SELECT merchant_id, status, count(*) AS n, sum(amount) AS amount FROM deposits GROUP BY 1, 2
  )
  SELECT coalesce(a.merchant_id, r.merchant_id)::text AS merchant_id,
         coalesce(a.status, r.status) AS status,
         coalesce(r.deposit_count, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n,
         coalesce(r.amount, 0)::text AS stored_amount, coalesce(a.amount, 0)::text AS actual_amount
  FROM actual a FULL JOIN deposit_rollups_total r ON r.merchant_id = a.merchant_id AND r.status = a.status
  WHERE coalesce(r.deposit_count, 0) <> coalesce(a.n, 0) OR coalesce(r.amount, 0) <> coalesce(a.amount, 0)
  ORDER BY 1, 2`;

export async function checkRollups(db: Executor): Promise<RollupDifference[]> {
  const daily = await queryRows<DiffRow>(db, DAILY);
  const hourly = await queryRows<DiffRow>(db, HOURLY);
  const total = await queryRows<DiffRow>(db, TOTAL);
  const incidents = await queryRows<DiffRow>(db, INCIDENTS);
  const depositsDaily = await queryRows<DiffRow>(db, DEPOSITS_DAILY);
  const depositsTotal = await queryRows<DiffRow>(db, DEPOSITS_TOTAL);
  // The admin stats take the pool's size (the order branch; static addresses have no derivation_index) as max(derivation_index) + 1 (get-address-pool-counts.ts).
  const [pool] = await queryRows<{ stored: string; actual: string }>(
    db,
    sql`SELECT (coalesce(max(derivation_index), -1) + 1)::text AS stored, count(derivation_index)::text AS actual
        FROM addresses`,
  );
  return [
    ...(pool && pool.stored !== pool.actual
      ? [{ table: "addresses" as const, key: { pool: "size" }, stored: [pool.stored], actual: [pool.actual] }]
      : []),
    ...daily.map((row) => ({
      table: "order_rollups_daily" as const,
      key: { day: row.day ?? "", merchant_id: row.merchant_id, status: row.status ?? "" },
      stored: [row.stored_n, row.stored_amount ?? "0"],
      actual: [row.actual_n, row.actual_amount ?? "0"],
    })),
    ...hourly.map((row) => ({
      table: "order_rollups_hourly" as const,
      key: { hour: row.hour ?? "", merchant_id: row.merchant_id, status: row.status ?? "" },
      stored: [row.stored_n],
      actual: [row.actual_n],
    })),
    ...total.map((row) => ({
      table: "order_rollups_total" as const,
      key: { merchant_id: row.merchant_id, status: row.status ?? "" },
      stored: [row.stored_n, row.stored_amount ?? "0"],
      actual: [row.actual_n, row.actual_amount ?? "0"],
    })),
    ...depositsDaily.map((row) => ({
      table: "deposit_rollups_daily" as const,
      key: { day: row.day ?? "", merchant_id: row.merchant_id, status: row.status ?? "" },
      stored: [row.stored_n, row.stored_amount ?? "0"],
      actual: [row.actual_n, row.actual_amount ?? "0"],
    })),
    ...depositsTotal.map((row) => ({
      table: "deposit_rollups_total" as const,
      key: { merchant_id: row.merchant_id, status: row.status ?? "" },
      stored: [row.stored_n, row.stored_amount ?? "0"],
      actual: [row.actual_n, row.actual_amount ?? "0"],
    })),
    ...incidents.map((row) => ({
      table: "merchant_incidents" as const,
      key: { merchant_id: row.merchant_id },
      stored: [row.stored_n],
      actual: [row.actual_n],
    })),
  ];
}
