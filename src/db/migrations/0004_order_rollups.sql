-- Rollups for the admin reads (issue 14): counters per merchant x UTC day of creation x current
-- status, so stats, stats/daily, the merchant list and the merchant detail never scan orders.
--
-- They are maintained by statement-level triggers on orders, in the same transaction as the change,
-- with additive deltas (INSERT ... ON CONFLICT DO UPDATE SET n = n + excluded.n): two transactions
-- changing the same counter serialize on its row and neither update is lost, on PostgreSQL and on
-- PGlite. Triggers rather than calls in transitionOrder and the creation statement: every writer of
-- orders.status / orders.amount_received is covered (transitionOrder, transitionOrders, the creation
-- statement, and any later UPDATE), and the delta is computed from the row's real old and new values
-- rather than from a caller's copy. Each statement upserts its counters in key order, so two
-- single-statement writers never deadlock. `stablegate check-rollups` recounts everything.
--
-- Writers are held off while the triggers are created and the backfill reads, so no change can fall
-- between the backfill's snapshot and the first trigger firing.
LOCK TABLE orders, order_events IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE order_rollups_daily (
  day              date NOT NULL,
  merchant_id      uuid NOT NULL,
  status           text NOT NULL,
  order_count      bigint NOT NULL,
  amount_received  numeric(38, 0) NOT NULL,
  PRIMARY KEY (day, merchant_id, status)
);
CREATE INDEX order_rollups_daily_merchant_idx ON order_rollups_daily (merchant_id, day);

-- The same counters without the day: the all-time figures read at most merchants x statuses rows.
CREATE TABLE order_rollups_total (
  merchant_id      uuid NOT NULL,
  status           text NOT NULL,
  order_count      bigint NOT NULL,
  amount_received  numeric(38, 0) NOT NULL,
  PRIMARY KEY (merchant_id, status)
);

-- Incidents (webhook_failed, sweep_failed events) by merchant: order_events has no merchant_id, so
-- the merchant detail's incident count and 10 most recent incidents read this instead of joining
-- every incident with its order.
CREATE TABLE merchant_incidents (
  event_id     uuid PRIMARY KEY REFERENCES order_events (id),
  merchant_id  uuid NOT NULL,
  created_at   timestamptz NOT NULL
);
CREATE INDEX merchant_incidents_merchant_idx ON merchant_incidents (merchant_id, created_at DESC, event_id DESC);

-- Applies signed deltas (one row per key, in key order) to both rollup tables.
CREATE FUNCTION order_rollups_add(deltas jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO order_rollups_daily AS r (day, merchant_id, status, order_count, amount_received)
  SELECT d.day, d.merchant_id, d.status, d.n, d.amount
  FROM jsonb_to_recordset(deltas) AS d(day date, merchant_id uuid, status text, n bigint, amount numeric)
  ORDER BY d.day, d.merchant_id, d.status
  ON CONFLICT (day, merchant_id, status) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received;
  INSERT INTO order_rollups_total AS r (merchant_id, status, order_count, amount_received)
  SELECT d.merchant_id, d.status, sum(d.n), sum(d.amount)
  FROM jsonb_to_recordset(deltas) AS d(day date, merchant_id uuid, status text, n bigint, amount numeric)
  GROUP BY d.merchant_id, d.status
  ORDER BY d.merchant_id, d.status
  ON CONFLICT (merchant_id, status) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received;
$$;

CREATE FUNCTION order_rollups_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_rollups_daily AS r (day, merchant_id, status, order_count, amount_received)
  SELECT (created_at AT TIME ZONE 'UTC')::date, merchant_id, status, count(*), sum(amount_received)
  FROM new_orders
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (day, merchant_id, status) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received;
  INSERT INTO order_rollups_total AS r (merchant_id, status, order_count, amount_received)
  SELECT merchant_id, status, count(*), sum(amount_received)
  FROM new_orders
  GROUP BY 1, 2
  ORDER BY 1, 2
  ON CONFLICT (merchant_id, status) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received;
  RETURN NULL;
END $$;

CREATE FUNCTION order_rollups_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(jsonb_build_object('day', day, 'merchant_id', merchant_id, 'status', status,
           'n', n, 'amount', amount) ORDER BY day, merchant_id, status)
  INTO deltas
  FROM (
    SELECT day, merchant_id, status, sum(n) AS n, sum(amount) AS amount
    FROM (
      SELECT (o.created_at AT TIME ZONE 'UTC')::date AS day, o.merchant_id, o.status,
             -1 AS n, -o.amount_received AS amount
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status, o.amount_received, o.merchant_id, o.created_at)
            IS DISTINCT FROM (n.status, n.amount_received, n.merchant_id, n.created_at)
      UNION ALL
      SELECT (n.created_at AT TIME ZONE 'UTC')::date, n.merchant_id, n.status, 1, n.amount_received
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status, o.amount_received, o.merchant_id, o.created_at)
            IS DISTINCT FROM (n.status, n.amount_received, n.merchant_id, n.created_at)
    ) AS change
    GROUP BY day, merchant_id, status
    HAVING sum(n) <> 0 OR sum(amount) <> 0
  ) AS delta;
  IF deltas IS NOT NULL THEN
    PERFORM order_rollups_add(deltas);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION order_rollups_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(jsonb_build_object('day', day, 'merchant_id', merchant_id, 'status', status,
           'n', -n, 'amount', -amount) ORDER BY day, merchant_id, status)
  INTO deltas
  FROM (
    SELECT (created_at AT TIME ZONE 'UTC')::date AS day, merchant_id, status, count(*) AS n,
           sum(amount_received) AS amount
    FROM old_orders
    GROUP BY 1, 2, 3
  ) AS delta;
  IF deltas IS NOT NULL THEN
    PERFORM order_rollups_add(deltas);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER order_rollups_insert AFTER INSERT ON orders
  REFERENCING NEW TABLE AS new_orders FOR EACH STATEMENT EXECUTE FUNCTION order_rollups_on_insert();
CREATE TRIGGER order_rollups_update AFTER UPDATE ON orders
  REFERENCING OLD TABLE AS old_orders NEW TABLE AS new_orders
  FOR EACH STATEMENT EXECUTE FUNCTION order_rollups_on_update();
CREATE TRIGGER order_rollups_delete AFTER DELETE ON orders
  REFERENCING OLD TABLE AS old_orders FOR EACH STATEMENT EXECUTE FUNCTION order_rollups_on_delete();

-- Only incident events fire it (the WHEN is checked without calling the function), so the
-- order_created inserts of the creation statement pay nothing.
CREATE FUNCTION merchant_incidents_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO merchant_incidents (event_id, merchant_id, created_at)
  SELECT NEW.id, merchant_id, NEW.created_at FROM orders WHERE id = NEW.order_id;
  RETURN NULL;
END $$;
CREATE TRIGGER merchant_incidents_insert AFTER INSERT ON order_events
  FOR EACH ROW WHEN (NEW.event_type IN ('webhook_failed', 'sweep_failed'))
  EXECUTE FUNCTION merchant_incidents_on_insert();

-- Backfill from the existing data.
INSERT INTO order_rollups_daily (day, merchant_id, status, order_count, amount_received)
SELECT (created_at AT TIME ZONE 'UTC')::date, merchant_id, status, count(*), sum(amount_received)
FROM orders
GROUP BY 1, 2, 3;
INSERT INTO order_rollups_total (merchant_id, status, order_count, amount_received)
SELECT merchant_id, status, sum(order_count), sum(amount_received)
FROM order_rollups_daily
GROUP BY 1, 2;
INSERT INTO merchant_incidents (event_id, merchant_id, created_at)
SELECT e.id, o.merchant_id, e.created_at
FROM order_events e JOIN orders o ON o.id = e.order_id
WHERE e.event_type IN ('webhook_failed', 'sweep_failed');

-- Order lists (SPEC 4.5 and the merchant API) read their page through an index for every filter
-- combination: none (orders_created_idx), merchant (orders_merchant_created_idx), status and
-- merchant + status (below); from/to are ranges on the trailing created_at of each. The same
-- indexes count the partial days at the edges of a from/to range (index-only).
DROP INDEX orders_status_created_idx;
CREATE INDEX orders_status_created_idx ON orders (status, created_at DESC, id DESC);
CREATE INDEX orders_merchant_status_created_idx ON orders (merchant_id, status, created_at DESC, id DESC);
