-- Stats per chain and currency (issue 39 part 8) and the sub-micro remainder of stray transfers
-- (issue 39 part 7).
--
-- order_rollups_daily and order_rollups_total gain the order's chain and currency as part of their
-- key, so the admin stats can answer per chain and currency and never add one currency's amounts to
-- another's. The minutely and hourly rollups count orders for pagination totals and stay as they
-- are. The triggers of 0028 are replaced to carry chain and currency in their deltas; an order's
-- chain and currency never change, but an update of either would still move its counts.
--
-- Rows written before this migration take the default tron/USDT (the only chain and currency
-- before 0021); the two tables are then recounted from orders, so any order already on another
-- chain or in another currency lands on its own row. Writers are held off while the functions
-- change and the recount reads.
LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE order_rollups_daily ADD COLUMN chain text NOT NULL DEFAULT 'tron';
ALTER TABLE order_rollups_daily ADD COLUMN currency text NOT NULL DEFAULT 'USDT';
ALTER TABLE order_rollups_daily DROP CONSTRAINT order_rollups_daily_pkey;
ALTER TABLE order_rollups_daily ADD PRIMARY KEY (day, merchant_id, status, chain, currency);

ALTER TABLE order_rollups_total ADD COLUMN chain text NOT NULL DEFAULT 'tron';
ALTER TABLE order_rollups_total ADD COLUMN currency text NOT NULL DEFAULT 'USDT';
ALTER TABLE order_rollups_total DROP CONSTRAINT order_rollups_total_pkey;
ALTER TABLE order_rollups_total ADD PRIMARY KEY (merchant_id, status, chain, currency);

CREATE OR REPLACE FUNCTION order_rollups_add(deltas jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO order_rollups_minutely AS r (minute, merchant_id, status, order_count)
  SELECT d.minute, d.merchant_id, d.status, sum(d.n)
  FROM jsonb_to_recordset(deltas) AS d(minute timestamp, merchant_id uuid, status text, n bigint)
  GROUP BY 1, 2, 3
  HAVING sum(d.n) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (minute, merchant_id, status) DO UPDATE SET order_count = r.order_count + excluded.order_count;
  INSERT INTO order_rollups_hourly AS r (hour, merchant_id, status, order_count)
  SELECT date_trunc('hour', d.minute), d.merchant_id, d.status, sum(d.n)
  FROM jsonb_to_recordset(deltas) AS d(minute timestamp, merchant_id uuid, status text, n bigint)
  GROUP BY 1, 2, 3
  HAVING sum(d.n) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (hour, merchant_id, status) DO UPDATE SET order_count = r.order_count + excluded.order_count;
  INSERT INTO order_rollups_daily AS r
    (day, merchant_id, status, chain, currency, order_count, amount_received, paid_in_full_count)
  SELECT d.minute::date, d.merchant_id, d.status, d.chain, d.currency, sum(d.n), sum(d.amount),
         coalesce(sum(d.full_n), 0)
  FROM jsonb_to_recordset(deltas)
    AS d(minute timestamp, merchant_id uuid, status text, chain text, currency text, n bigint, amount numeric, full_n bigint)
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (day, merchant_id, status, chain, currency) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received,
        paid_in_full_count = r.paid_in_full_count + excluded.paid_in_full_count;
  INSERT INTO order_rollups_total AS r
    (merchant_id, status, chain, currency, order_count, amount_received, paid_in_full_count)
  SELECT d.merchant_id, d.status, d.chain, d.currency, sum(d.n), sum(d.amount), coalesce(sum(d.full_n), 0)
  FROM jsonb_to_recordset(deltas)
    AS d(minute timestamp, merchant_id uuid, status text, chain text, currency text, n bigint, amount numeric, full_n bigint)
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (merchant_id, status, chain, currency) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received,
        paid_in_full_count = r.paid_in_full_count + excluded.paid_in_full_count;
$$;

CREATE OR REPLACE FUNCTION order_rollups_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_rollups_minutely AS r (minute, merchant_id, status, order_count)
  SELECT date_trunc('minute', created_at AT TIME ZONE 'UTC'), merchant_id, status, count(*)
  FROM new_orders
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (minute, merchant_id, status) DO UPDATE SET order_count = r.order_count + excluded.order_count;
  INSERT INTO order_rollups_hourly AS r (hour, merchant_id, status, order_count)
  SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC'), merchant_id, status, count(*)
  FROM new_orders
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (hour, merchant_id, status) DO UPDATE SET order_count = r.order_count + excluded.order_count;
  INSERT INTO order_rollups_daily AS r
    (day, merchant_id, status, chain, currency, order_count, amount_received, paid_in_full_count)
  SELECT (created_at AT TIME ZONE 'UTC')::date, merchant_id, status, chain, currency, count(*), sum(amount_received),
         count(*) FILTER (WHERE amount_received >= amount_expected)
  FROM new_orders
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (day, merchant_id, status, chain, currency) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received,
        paid_in_full_count = r.paid_in_full_count + excluded.paid_in_full_count;
  INSERT INTO order_rollups_total AS r
    (merchant_id, status, chain, currency, order_count, amount_received, paid_in_full_count)
  SELECT merchant_id, status, chain, currency, count(*), sum(amount_received),
         count(*) FILTER (WHERE amount_received >= amount_expected)
  FROM new_orders
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (merchant_id, status, chain, currency) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received,
        paid_in_full_count = r.paid_in_full_count + excluded.paid_in_full_count;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION order_rollups_on_update() RETURNS trigger LANGUAGE plpgsql
SET enable_nestloop = off AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(jsonb_build_object('minute', minute, 'merchant_id', merchant_id, 'status', status,
           'chain', chain, 'currency', currency, 'n', n, 'amount', amount, 'full_n', full_n)
           ORDER BY minute, merchant_id, status, chain, currency)
  INTO deltas
  FROM (
    SELECT minute, merchant_id, status, chain, currency, sum(n) AS n, sum(amount) AS amount, sum(full_n) AS full_n
    FROM (
      SELECT date_trunc('minute', o.created_at AT TIME ZONE 'UTC') AS minute, o.merchant_id, o.status,
             o.chain, o.currency,
             -1 AS n, -o.amount_received AS amount, -(o.amount_received >= o.amount_expected)::int AS full_n
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status, o.amount_received, o.amount_expected, o.merchant_id, o.created_at, o.chain, o.currency)
            IS DISTINCT FROM (n.status, n.amount_received, n.amount_expected, n.merchant_id, n.created_at, n.chain, n.currency)
      UNION ALL
      SELECT date_trunc('minute', n.created_at AT TIME ZONE 'UTC'), n.merchant_id, n.status, n.chain, n.currency,
             1, n.amount_received, (n.amount_received >= n.amount_expected)::int
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status, o.amount_received, o.amount_expected, o.merchant_id, o.created_at, o.chain, o.currency)
            IS DISTINCT FROM (n.status, n.amount_received, n.amount_expected, n.merchant_id, n.created_at, n.chain, n.currency)
    ) AS change
    GROUP BY minute, merchant_id, status, chain, currency
    HAVING sum(n) <> 0 OR sum(amount) <> 0 OR sum(full_n) <> 0
  ) AS delta;
  IF deltas IS NOT NULL THEN
    PERFORM order_rollups_add(deltas);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION order_rollups_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(jsonb_build_object('minute', minute, 'merchant_id', merchant_id, 'status', status,
           'chain', chain, 'currency', currency, 'n', -n, 'amount', -amount, 'full_n', -full_n)
           ORDER BY minute, merchant_id, status, chain, currency)
  INTO deltas
  FROM (
    SELECT date_trunc('minute', created_at AT TIME ZONE 'UTC') AS minute, merchant_id, status, chain, currency,
           count(*) AS n, sum(amount_received) AS amount,
           count(*) FILTER (WHERE amount_received >= amount_expected) AS full_n
    FROM old_orders
    GROUP BY 1, 2, 3, 4, 5
  ) AS delta;
  IF deltas IS NOT NULL THEN
    PERFORM order_rollups_add(deltas);
  END IF;
  RETURN NULL;
END $$;

-- The recount: one pass over orders for the daily rows, the totals from them.
DELETE FROM order_rollups_daily;
DELETE FROM order_rollups_total;
INSERT INTO order_rollups_daily
  (day, merchant_id, status, chain, currency, order_count, amount_received, paid_in_full_count)
SELECT (created_at AT TIME ZONE 'UTC')::date, merchant_id, status, chain, currency, count(*), sum(amount_received),
       count(*) FILTER (WHERE amount_received >= amount_expected)
FROM orders
GROUP BY 1, 2, 3, 4, 5;
INSERT INTO order_rollups_total
  (merchant_id, status, chain, currency, order_count, amount_received, paid_in_full_count)
SELECT merchant_id, status, chain, currency, sum(order_count), sum(amount_received), sum(paid_in_full_count)
FROM order_rollups_daily
GROUP BY 1, 2, 3, 4;

-- A stray transfer of an 18-decimal token keeps what it carried below one micro-unit, in the token's
-- own smallest units, as transfers do (migration 0021): never credited, never dropped from the books.
-- token_decimals is the token's decimals, so the admin read can show the remainder as an exact
-- decimal (0.000000500000000000 of an 18-decimal token); rows before it were all 6-decimal TRON USDT.
ALTER TABLE stray_transfers ADD COLUMN IF NOT EXISTS remainder numeric(38, 0) NOT NULL DEFAULT 0;
ALTER TABLE stray_transfers ADD COLUMN IF NOT EXISTS token_decimals smallint NOT NULL DEFAULT 6;

-- The pool_low alert is per chain family's pool now (`pool_low:tron`, `pool_low:evm`): one still
-- firing under the family-less key is resolved; the per-family reading fires again while low.
UPDATE alerts SET state = 'resolved', resolved_at = now()
WHERE kind = 'condition' AND key = 'pool_low' AND state = 'firing';
