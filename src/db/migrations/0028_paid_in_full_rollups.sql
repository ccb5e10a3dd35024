-- Orders paid in full in the daily and total rollups (docs/operators.md, "Success rate").
--
-- paid_in_full_count counts the orders of a (day, merchant, status) or (merchant, status) row whose
-- amount_received reaches amount_expected. Read together with the status, it gives the paid-in-full
-- rate: the rows of an outcome status (confirmed, underpaid, overpaid, completed, callback_failed)
-- paid in full, over those rows and the expired ones. An underpaid order accepted by hand stays
-- short of its amount, so it is not counted.
--
-- The triggers of 0004/0013 are replaced to carry the flag as a third delta beside n and amount;
-- an update now also counts a change of amount_expected. Writers are held off while the functions
-- change and the backfill reads.
LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE order_rollups_daily ADD COLUMN paid_in_full_count bigint NOT NULL DEFAULT 0;
ALTER TABLE order_rollups_total ADD COLUMN paid_in_full_count bigint NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION order_rollups_add(deltas jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO order_rollups_minutely AS r (minute, merchant_id, status, order_count)
  SELECT d.minute, d.merchant_id, d.status, sum(d.n)
  FROM jsonb_to_recordset(deltas) AS d(minute timestamp, merchant_id uuid, status text, n bigint, amount numeric, full_n bigint)
  GROUP BY 1, 2, 3
  HAVING sum(d.n) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (minute, merchant_id, status) DO UPDATE SET order_count = r.order_count + excluded.order_count;
  INSERT INTO order_rollups_hourly AS r (hour, merchant_id, status, order_count)
  SELECT date_trunc('hour', d.minute), d.merchant_id, d.status, sum(d.n)
  FROM jsonb_to_recordset(deltas) AS d(minute timestamp, merchant_id uuid, status text, n bigint, amount numeric, full_n bigint)
  GROUP BY 1, 2, 3
  HAVING sum(d.n) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (hour, merchant_id, status) DO UPDATE SET order_count = r.order_count + excluded.order_count;
  INSERT INTO order_rollups_daily AS r (day, merchant_id, status, order_count, amount_received, paid_in_full_count)
  SELECT d.minute::date, d.merchant_id, d.status, sum(d.n), sum(d.amount), coalesce(sum(d.full_n), 0)
  FROM jsonb_to_recordset(deltas) AS d(minute timestamp, merchant_id uuid, status text, n bigint, amount numeric, full_n bigint)
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (day, merchant_id, status) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received,
        paid_in_full_count = r.paid_in_full_count + excluded.paid_in_full_count;
  INSERT INTO order_rollups_total AS r (merchant_id, status, order_count, amount_received, paid_in_full_count)
  SELECT d.merchant_id, d.status, sum(d.n), sum(d.amount), coalesce(sum(d.full_n), 0)
  FROM jsonb_to_recordset(deltas) AS d(minute timestamp, merchant_id uuid, status text, n bigint, amount numeric, full_n bigint)
  GROUP BY d.merchant_id, d.status
  ORDER BY d.merchant_id, d.status
  ON CONFLICT (merchant_id, status) DO UPDATE
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
  INSERT INTO order_rollups_daily AS r (day, merchant_id, status, order_count, amount_received, paid_in_full_count)
  SELECT (created_at AT TIME ZONE 'UTC')::date, merchant_id, status, count(*), sum(amount_received),
         count(*) FILTER (WHERE amount_received >= amount_expected)
  FROM new_orders
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (day, merchant_id, status) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received,
        paid_in_full_count = r.paid_in_full_count + excluded.paid_in_full_count;
  INSERT INTO order_rollups_total AS r (merchant_id, status, order_count, amount_received, paid_in_full_count)
  SELECT merchant_id, status, count(*), sum(amount_received),
         count(*) FILTER (WHERE amount_received >= amount_expected)
  FROM new_orders
  GROUP BY 1, 2
  ORDER BY 1, 2
  ON CONFLICT (merchant_id, status) DO UPDATE
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
           'n', n, 'amount', amount, 'full_n', full_n) ORDER BY minute, merchant_id, status)
  INTO deltas
  FROM (
    SELECT minute, merchant_id, status, sum(n) AS n, sum(amount) AS amount, sum(full_n) AS full_n
    FROM (
      SELECT date_trunc('minute', o.created_at AT TIME ZONE 'UTC') AS minute, o.merchant_id, o.status,
             -1 AS n, -o.amount_received AS amount, -(o.amount_received >= o.amount_expected)::int AS full_n
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status, o.amount_received, o.amount_expected, o.merchant_id, o.created_at)
            IS DISTINCT FROM (n.status, n.amount_received, n.amount_expected, n.merchant_id, n.created_at)
      UNION ALL
      SELECT date_trunc('minute', n.created_at AT TIME ZONE 'UTC'), n.merchant_id, n.status, 1, n.amount_received,
             (n.amount_received >= n.amount_expected)::int
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status, o.amount_received, o.amount_expected, o.merchant_id, o.created_at)
            IS DISTINCT FROM (n.status, n.amount_received, n.amount_expected, n.merchant_id, n.created_at)
    ) AS change
    GROUP BY minute, merchant_id, status
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
           'n', -n, 'amount', -amount, 'full_n', -full_n) ORDER BY minute, merchant_id, status)
  INTO deltas
  FROM (
    SELECT date_trunc('minute', created_at AT TIME ZONE 'UTC') AS minute, merchant_id, status, count(*) AS n,
           sum(amount_received) AS amount, count(*) FILTER (WHERE amount_received >= amount_expected) AS full_n
    FROM old_orders
    GROUP BY 1, 2, 3
  ) AS delta;
  IF deltas IS NOT NULL THEN
    PERFORM order_rollups_add(deltas);
  END IF;
  RETURN NULL;
END $$;

UPDATE order_rollups_daily r SET paid_in_full_count = a.n
FROM (
  SELECT (created_at AT TIME ZONE 'UTC')::date AS day, merchant_id, status, count(*) AS n
  FROM orders WHERE amount_received >= amount_expected GROUP BY 1, 2, 3
) AS a
WHERE r.day = a.day AND r.merchant_id = a.merchant_id AND r.status = a.status;
UPDATE order_rollups_total r SET paid_in_full_count = a.n
FROM (
  SELECT merchant_id, status, sum(paid_in_full_count) AS n FROM order_rollups_daily GROUP BY 1, 2
) AS a
WHERE r.merchant_id = a.merchant_id AND r.status = a.status;

-- The admin merchant detail's balance breakdown (src/ledger/balance-breakdown.ts) sums one
-- merchant's ledger transactions by kind: read through this index, not the whole ledger.
CREATE INDEX ledger_transactions_merchant_idx ON ledger_transactions (merchant_id, kind);
