-- Rollups for the admin reads: counters per merchant x UTC day of creation x current
-- status (and order counts per UTC hour for pagination totals), so stats, stats/daily, the merchant list and the merchant detail never scan orders.
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

-- Order counts per UTC hour (created_at truncated, as a UTC timestamp): pagination.total counts the
-- whole hours of a from/to range's edge days here, so only the partial hours at its very ends are
-- counted in orders.
CREATE TABLE order_rollups_hourly (
  hour         timestamp NOT NULL,
  merchant_id  uuid NOT NULL,
  status       text NOT NULL,
  order_count  bigint NOT NULL,
  PRIMARY KEY (hour, merchant_id, status)
);

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

-- Applies signed deltas, one per (hour, merchant, status), to the three rollup tables, each in key
-- order.
CREATE FUNCTION order_rollups_add(deltas jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO order_rollups_hourly AS r (hour, merchant_id, status, order_count)
  SELECT d.hour, d.merchant_id, d.status, d.n
  FROM jsonb_to_recordset(deltas) AS d(hour timestamp, merchant_id uuid, status text, n bigint, amount numeric)
  WHERE d.n <> 0
  ORDER BY d.hour, d.merchant_id, d.status
  ON CONFLICT (hour, merchant_id, status) DO UPDATE SET order_count = r.order_count + excluded.order_count;
  INSERT INTO order_rollups_daily AS r (day, merchant_id, status, order_count, amount_received)
  SELECT d.hour::date, d.merchant_id, d.status, sum(d.n), sum(d.amount)
  FROM jsonb_to_recordset(deltas) AS d(hour timestamp, merchant_id uuid, status text, n bigint, amount numeric)
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (day, merchant_id, status) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received;
  INSERT INTO order_rollups_total AS r (merchant_id, status, order_count, amount_received)
  SELECT d.merchant_id, d.status, sum(d.n), sum(d.amount)
  FROM jsonb_to_recordset(deltas) AS d(hour timestamp, merchant_id uuid, status text, n bigint, amount numeric)
  GROUP BY d.merchant_id, d.status
  ORDER BY d.merchant_id, d.status
  ON CONFLICT (merchant_id, status) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received;
$$;

CREATE FUNCTION order_rollups_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_rollups_hourly AS r (hour, merchant_id, status, order_count)
  SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC'), merchant_id, status, count(*)
  FROM new_orders
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (hour, merchant_id, status) DO UPDATE SET order_count = r.order_count + excluded.order_count;
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
  SELECT jsonb_agg(jsonb_build_object('hour', hour, 'merchant_id', merchant_id, 'status', status,
           'n', n, 'amount', amount) ORDER BY hour, merchant_id, status)
  INTO deltas
  FROM (
    SELECT hour, merchant_id, status, sum(n) AS n, sum(amount) AS amount
    FROM (
      SELECT date_trunc('hour', o.created_at AT TIME ZONE 'UTC') AS hour, o.merchant_id, o.status,
             -1 AS n, -o.amount_received AS amount
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status, o.amount_received, o.merchant_id, o.created_at)
            IS DISTINCT FROM (n.status, n.amount_received, n.merchant_id, n.created_at)
      UNION ALL
      SELECT date_trunc('hour', n.created_at AT TIME ZONE 'UTC'), n.merchant_id, n.status, 1, n.amount_received
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status, o.amount_received, o.merchant_id, o.created_at)
            IS DISTINCT FROM (n.status, n.amount_received, n.merchant_id, n.created_at)
    ) AS change
    GROUP BY hour, merchant_id, status
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
  SELECT jsonb_agg(jsonb_build_object('hour', hour, 'merchant_id', merchant_id, 'status', status,
           'n', -n, 'amount', -amount) ORDER BY hour, merchant_id, status)
  INTO deltas
  FROM (
    SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC') AS hour, merchant_id, status, count(*) AS n,
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

-- Backfill from the existing data: one pass over orders, the coarser tables from the finer.
CREATE TEMPORARY TABLE order_rollups_backfill ON COMMIT DROP AS
SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC') AS hour, merchant_id, status,
       count(*) AS order_count, sum(amount_received) AS amount_received
FROM orders
GROUP BY 1, 2, 3;
INSERT INTO order_rollups_hourly (hour, merchant_id, status, order_count)
SELECT hour, merchant_id, status, order_count FROM order_rollups_backfill;
INSERT INTO order_rollups_daily (day, merchant_id, status, order_count, amount_received)
SELECT hour::date, merchant_id, status, sum(order_count), sum(amount_received)
FROM order_rollups_backfill
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
-- indexes count the partial hours at the ends of a from/to range (index-only).
DROP INDEX orders_status_created_idx;
CREATE INDEX orders_status_created_idx ON orders (status, created_at DESC, id DESC);
CREATE INDEX orders_merchant_status_created_idx ON orders (merchant_id, status, created_at DESC, id DESC);
