/**
 * `stablegate check-rollups`: recounts every rollup (migrations 0004, 0010, 0013 and 0033: the daily
 * and total order rollups per chain and currency; 0012 and 0038: the deposit rollups per chain and
 * currency) from orders, deposits,
 * order_events, addresses and stray_transfers (and checks that each attached stray is credited
 * once, to its order), and lists each key whose stored counters differ. A missing rollup row equals
 * one holding zeros.
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
    | "order_rollups_minutely"
    | "address_pool_counts"
    | "free_addresses"
    | "order_rollups_total"
    | "merchant_incidents"
    | "addresses"
    | "stray_rollups"
    | "stray_transfers"
    | "deposit_rollups_daily"
    | "deposit_rollups_total";
  /** The key: day, hour or minute/merchant_id/status(/chain/currency), merchant_id/status/chain/currency, or merchant_id. */
  key: Record<string, string>;
  /** [order_count, amount_received, paid_in_full_count] or [incident_count], as stored and recounted. */
  stored: string[];
  actual: string[];
}

interface DiffRow extends Record<string, unknown> {
  day?: string;
  hour?: string;
  minute?: string;
  merchant_id: string;
  status?: string;
  chain?: string;
  currency?: string;
  stored_n: string;
  actual_n: string;
  stored_amount?: string;
  actual_amount?: string;
  stored_full?: string;
  actual_full?: string;
}

/** Orders whose amount_received reaches amount_expected (migration 0028). */
const PAID_IN_FULL = sql.raw("count(*) FILTER (WHERE amount_received >= amount_expected)");

const DAILY = sql`
  WITH actual AS (
    SELECT (created_at AT TIME ZONE 'UTC')::date AS day, merchant_id, status, chain, currency,
           count(*) AS n, sum(amount_received) AS amount, ${PAID_IN_FULL} AS full_n
    FROM orders GROUP BY 1, 2, 3, 4, 5
  )
  SELECT to_char(coalesce(a.day, r.day), 'YYYY-MM-DD') AS day,
         coalesce(a.merchant_id, r.merchant_id)::text AS merchant_id,
         coalesce(a.status, r.status) AS status,
         coalesce(a.chain, r.chain) AS chain, coalesce(a.currency, r.currency) AS currency,
         coalesce(r.order_count, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n,
         coalesce(r.amount_received, 0)::text AS stored_amount, coalesce(a.amount, 0)::text AS actual_amount,
         coalesce(r.paid_in_full_count, 0)::text AS stored_full, coalesce(a.full_n, 0)::text AS actual_full
  FROM actual a FULL JOIN order_rollups_daily r
    ON r.day = a.day AND r.merchant_id = a.merchant_id AND r.status = a.status
      AND r.chain = a.chain AND r.currency = a.currency
  WHERE coalesce(r.order_count, 0) <> coalesce(a.n, 0)
     OR coalesce(r.amount_received, 0) <> coalesce(a.amount, 0)
     OR coalesce(r.paid_in_full_count, 0) <> coalesce(a.full_n, 0)
  ORDER BY 1, 2, 3, 4, 5`;

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

const MINUTELY = sql`
  WITH actual AS (
    SELECT date_trunc('minute', created_at AT TIME ZONE 'UTC') AS minute, merchant_id, status, count(*) AS n
    FROM orders GROUP BY 1, 2, 3
  )
  SELECT to_char(coalesce(a.minute, r.minute), 'YYYY-MM-DD"T"HH24:MI') AS minute,
         coalesce(a.merchant_id, r.merchant_id)::text AS merchant_id,
         coalesce(a.status, r.status) AS status,
         coalesce(r.order_count, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n
  FROM actual a FULL JOIN order_rollups_minutely r
    ON r.minute = a.minute AND r.merchant_id = a.merchant_id AND r.status = a.status
  WHERE coalesce(r.order_count, 0) <> coalesce(a.n, 0)
  ORDER BY 1, 2, 3`;

const TOTAL = sql`
  WITH actual AS (
    SELECT merchant_id, status, chain, currency, count(*) AS n, sum(amount_received) AS amount,
           ${PAID_IN_FULL} AS full_n
    FROM orders GROUP BY 1, 2, 3, 4
  )
  SELECT coalesce(a.merchant_id, r.merchant_id)::text AS merchant_id,
         coalesce(a.status, r.status) AS status,
         coalesce(a.chain, r.chain) AS chain, coalesce(a.currency, r.currency) AS currency,
         coalesce(r.order_count, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n,
         coalesce(r.amount_received, 0)::text AS stored_amount, coalesce(a.amount, 0)::text AS actual_amount,
         coalesce(r.paid_in_full_count, 0)::text AS stored_full, coalesce(a.full_n, 0)::text AS actual_full
  FROM actual a FULL JOIN order_rollups_total r
    ON r.merchant_id = a.merchant_id AND r.status = a.status AND r.chain = a.chain AND r.currency = a.currency
  WHERE coalesce(r.order_count, 0) <> coalesce(a.n, 0)
     OR coalesce(r.amount_received, 0) <> coalesce(a.amount, 0)
     OR coalesce(r.paid_in_full_count, 0) <> coalesce(a.full_n, 0)
  ORDER BY 1, 2, 3, 4`;

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

// Stray counters (migration 0010) by resolution ('unresolved' for none) and status.
const STRAYS = sql`
  WITH actual AS (
    SELECT coalesce(resolution, 'unresolved') AS resolution, status, count(*) AS n, sum(amount) AS amount
    FROM stray_transfers GROUP BY 1, 2
  )
  SELECT coalesce(a.resolution, r.resolution) AS resolution, coalesce(a.status, r.status) AS status,
         coalesce(r.n, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n,
         coalesce(r.amount, 0)::text AS stored_amount, coalesce(a.amount, 0)::text AS actual_amount
  FROM actual a FULL JOIN stray_rollups r ON r.resolution = a.resolution AND r.status = a.status
  WHERE coalesce(r.n, 0) <> coalesce(a.n, 0) OR coalesce(r.amount, 0) <> coalesce(a.amount, 0)
  ORDER BY 1, 2`;

// An attached stray is credited once, to its order: exactly one transfers row with its identity,
// and it belongs to that order. No stray's identity is credited to an order without being attached.
const ATTACHED = sql`
  SELECT st.id::text AS id,
         (SELECT count(*) FROM transfers t WHERE t.tx_hash = st.tx_hash AND t.log_index = st.log_index
            AND t.order_id = st.order_id)::text AS credited_to_order,
         (SELECT count(*) FROM transfers t WHERE t.tx_hash = st.tx_hash AND t.log_index = st.log_index)::text
           AS credited
  FROM stray_transfers st
  WHERE coalesce(st.resolution = 'attached', false) IS DISTINCT FROM EXISTS (
          SELECT 1 FROM transfers t WHERE t.tx_hash = st.tx_hash AND t.log_index = st.log_index)
     OR (st.resolution = 'attached' AND (
          SELECT count(*) FROM transfers t WHERE t.tx_hash = st.tx_hash AND t.log_index = st.log_index
            AND t.order_id = st.order_id) <> 1)
  ORDER BY 1`;

// Deposit counters (migrations 0012 and 0038) per chain and currency.
const DEPOSITS_DAILY = sql`
  WITH actual AS (
    SELECT (created_at AT TIME ZONE 'UTC')::date AS day, merchant_id, status, chain, currency,
           count(*) AS n, sum(amount) AS amount
    FROM deposits GROUP BY 1, 2, 3, 4, 5
  )
  SELECT to_char(coalesce(a.day, r.day), 'YYYY-MM-DD') AS day,
         coalesce(a.merchant_id, r.merchant_id)::text AS merchant_id,
         coalesce(a.status, r.status) AS status,
         coalesce(a.chain, r.chain) AS chain, coalesce(a.currency, r.currency) AS currency,
         coalesce(r.deposit_count, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n,
         coalesce(r.amount, 0)::text AS stored_amount, coalesce(a.amount, 0)::text AS actual_amount
  FROM actual a FULL JOIN deposit_rollups_daily r
    ON r.day = a.day AND r.merchant_id = a.merchant_id AND r.status = a.status
      AND r.chain = a.chain AND r.currency = a.currency
  WHERE coalesce(r.deposit_count, 0) <> coalesce(a.n, 0) OR coalesce(r.amount, 0) <> coalesce(a.amount, 0)
  ORDER BY 1, 2, 3, 4, 5`;

const DEPOSITS_TOTAL = sql`
  WITH actual AS (
    SELECT merchant_id, status, chain, currency, count(*) AS n, sum(amount) AS amount
    FROM deposits GROUP BY 1, 2, 3, 4
  )
  SELECT coalesce(a.merchant_id, r.merchant_id)::text AS merchant_id,
         coalesce(a.status, r.status) AS status,
         coalesce(a.chain, r.chain) AS chain, coalesce(a.currency, r.currency) AS currency,
         coalesce(r.deposit_count, 0)::text AS stored_n, coalesce(a.n, 0)::text AS actual_n,
         coalesce(r.amount, 0)::text AS stored_amount, coalesce(a.amount, 0)::text AS actual_amount
  FROM actual a FULL JOIN deposit_rollups_total r
    ON r.merchant_id = a.merchant_id AND r.status = a.status AND r.chain = a.chain AND r.currency = a.currency
  WHERE coalesce(r.deposit_count, 0) <> coalesce(a.n, 0) OR coalesce(r.amount, 0) <> coalesce(a.amount, 0)
  ORDER BY 1, 2, 3, 4`;

export async function checkRollups(db: Executor): Promise<RollupDifference[]> {
  const daily = await queryRows<DiffRow>(db, DAILY);
  const hourly = await queryRows<DiffRow>(db, HOURLY);
  const total = await queryRows<DiffRow>(db, TOTAL);
  const incidents = await queryRows<DiffRow>(db, INCIDENTS);
  const strays = await queryRows<{
    resolution: string;
    status: string;
    stored_n: string;
    actual_n: string;
    stored_amount: string;
    actual_amount: string;
  }>(db, STRAYS);
  const attached = await queryRows<{ id: string; credited_to_order: string; credited: string }>(db, ATTACHED);
  // The admin stats take the pool's size as max(derivation_index) + 1 (get-address-pool-counts.ts).
  const depositsDaily = await queryRows<DiffRow>(db, DEPOSITS_DAILY);
  const depositsTotal = await queryRows<DiffRow>(db, DEPOSITS_TOTAL);
  const minutely = await queryRows<DiffRow>(db, MINUTELY);
  // The pools' counters (address_pool_counts: free and total, as the admin stats and the filler
  // read them) and each family's next index (address_pool_state: a pool's indexes are contiguous
  // from 0, so next_index less the filler's reservations in flight is max(derivation_index) + 1
  // and the number of the family's pool addresses; migration 0022). Static addresses have no
  // derivation_index and are never in a pool.
  const pools = await queryRows<{
    family: string;
    stored_free: string;
    actual_free: string;
    stored_total: string;
    actual_total: string;
    next_index: string;
    max_next: string;
  }>(
    db,
    sql`SELECT f.family,
          (SELECT coalesce(sum(free), 0) FROM address_pool_counts c WHERE c.family = f.family)::text AS stored_free,
          (SELECT count(*) FROM addresses a WHERE a.family = f.family AND a.status = 'free')::text AS actual_free,
          (SELECT coalesce(sum(total), 0) FROM address_pool_counts c WHERE c.family = f.family)::text AS stored_total,
          (SELECT count(derivation_index) FROM addresses a WHERE a.family = f.family)::text AS actual_total,
          ((SELECT coalesce(sum(next_index), 0) FROM address_pool_state s WHERE s.family = f.family)
            - (SELECT coalesce(sum(count), 0) FROM address_pool_reservations r WHERE r.family = f.family)
          )::text AS next_index,
          (SELECT coalesce(max(derivation_index), -1) + 1 FROM addresses a WHERE a.family = f.family)::text AS max_next
        FROM (SELECT family FROM address_pool_state UNION SELECT family FROM address_pool_counts
              UNION SELECT DISTINCT family FROM addresses) AS f
        ORDER BY f.family`,
  );
  // The list of free addresses the claims read (free_addresses, migration 0016, kept by the pool
  // triggers) against the addresses whose status is 'free': the same (family, index, id, address) rows.
  const [list] = await queryRows<{ unlisted: string; stale: string }>(
    db,
    sql`SELECT (SELECT count(*) FROM addresses a WHERE a.status = 'free' AND NOT EXISTS (
              SELECT 1 FROM free_addresses f WHERE f.family = a.family
                AND f.derivation_index = a.derivation_index
                AND f.address_id = a.id AND f.address = a.address))::text AS unlisted,
          (SELECT count(*) FROM free_addresses f WHERE NOT EXISTS (
              SELECT 1 FROM addresses a WHERE a.id = f.address_id AND a.status = 'free'
                AND a.family = f.family AND a.derivation_index = f.derivation_index
                AND a.address = f.address))::text AS stale`,
  );
  const poolDifferences: RollupDifference[] = [];
  // stored: free addresses missing from the list, and listed rows that are not a free address.
  if (list && (list.unlisted !== "0" || list.stale !== "0"))
    poolDifferences.push({
      table: "free_addresses",
      key: { pool: "free list" },
      stored: [list.unlisted, list.stale],
      actual: ["0", "0"],
    });
  for (const pool of pools) {
    // The first family's keys read as before there were families.
    const label = (what: string) => (pools.length === 1 ? what : `${pool.family} ${what}`);
    if (pool.stored_free !== pool.actual_free || pool.stored_total !== pool.actual_total)
      poolDifferences.push({
        table: "address_pool_counts",
        key: { pool: label("free/total") },
        stored: [pool.stored_free, pool.stored_total],
        actual: [pool.actual_free, pool.actual_total],
      });
    if (pool.next_index !== pool.actual_total || pool.max_next !== pool.actual_total)
      poolDifferences.push({
        table: "addresses",
        key: { pool: label("size") },
        stored: [pool.next_index, pool.max_next],
        actual: [pool.actual_total, pool.actual_total],
      });
  }
  return [
    ...poolDifferences,
    ...daily.map((row) => ({
      table: "order_rollups_daily" as const,
      key: {
        day: row.day ?? "",
        merchant_id: row.merchant_id,
        status: row.status ?? "",
        chain: row.chain ?? "",
        currency: row.currency ?? "",
      },
      stored: [row.stored_n, row.stored_amount ?? "0", row.stored_full ?? "0"],
      actual: [row.actual_n, row.actual_amount ?? "0", row.actual_full ?? "0"],
    })),
    ...minutely.map((row) => ({
      table: "order_rollups_minutely" as const,
      key: { minute: row.minute ?? "", merchant_id: row.merchant_id, status: row.status ?? "" },
      stored: [row.stored_n],
      actual: [row.actual_n],
    })),
    ...hourly.map((row) => ({
      table: "order_rollups_hourly" as const,
      key: { hour: row.hour ?? "", merchant_id: row.merchant_id, status: row.status ?? "" },
      stored: [row.stored_n],
      actual: [row.actual_n],
    })),
    ...total.map((row) => ({
      table: "order_rollups_total" as const,
      key: {
        merchant_id: row.merchant_id,
        status: row.status ?? "",
        chain: row.chain ?? "",
        currency: row.currency ?? "",
      },
      stored: [row.stored_n, row.stored_amount ?? "0", row.stored_full ?? "0"],
      actual: [row.actual_n, row.actual_amount ?? "0", row.actual_full ?? "0"],
    })),
    ...depositsDaily.map((row) => ({
      table: "deposit_rollups_daily" as const,
      key: {
        day: row.day ?? "",
        merchant_id: row.merchant_id,
        status: row.status ?? "",
        chain: row.chain ?? "",
        currency: row.currency ?? "",
      },
      stored: [row.stored_n, row.stored_amount ?? "0"],
      actual: [row.actual_n, row.actual_amount ?? "0"],
    })),
    ...depositsTotal.map((row) => ({
      table: "deposit_rollups_total" as const,
      key: {
        merchant_id: row.merchant_id,
        status: row.status ?? "",
        chain: row.chain ?? "",
        currency: row.currency ?? "",
      },
      stored: [row.stored_n, row.stored_amount ?? "0"],
      actual: [row.actual_n, row.actual_amount ?? "0"],
    })),
    ...incidents.map((row) => ({
      table: "merchant_incidents" as const,
      key: { merchant_id: row.merchant_id },
      stored: [row.stored_n],
      actual: [row.actual_n],
    })),
    ...strays.map((row) => ({
      table: "stray_rollups" as const,
      key: { resolution: row.resolution, status: row.status },
      stored: [row.stored_n, row.stored_amount],
      actual: [row.actual_n, row.actual_amount],
    })),
    // stored: transfers rows crediting it to its order; actual: what attachment requires (1, or 0).
    ...attached.map((row) => ({
      table: "stray_transfers" as const,
      key: { id: row.id },
      stored: [row.credited_to_order, row.credited],
      actual: ["attached: 1 to its order; otherwise 0", "0 or 1"],
    })),
  ];
}
