-- Peak load: an address supply that keeps pace, and exact order totals for any window
-- that stay flat in the window's traffic.
--
-- 1. Who takes which derivation index. Inserting "max(derivation_index) + 1" from two writers at
--    once (the pool filler and the inline derivation of an order creation that found the pool
--    empty) made both insert the same index and so the same address: ON CONFLICT (derivation_index)
--    only arbitrates that one unique index, and the address's own unique index answered the loser
--    with a unique violation (a 500 on order creation). Now every writer reserves its indexes from
--    this one row first (UPDATE ... next_index), so no two writers ever insert the same index.
--
-- 2. The free count without scanning: counters kept with the pool by a statement-level trigger on
--    addresses, in the same transaction as the change (the rollup pattern of 0004). Every order
--    creation claims addresses, so one counter row would serialize all creations on its lock:
--    the counters are spread over slots, and a statement adds its delta to the first slot no other
--    transaction holds (FOR UPDATE SKIP LOCKED), so it never waits on a slot. free = sum(free);
--    taken (free -> allocated, monotonic) gives the filler the rate at which addresses are taken.
--
-- 3. Order counts per UTC minute beside the hourly and daily ones: countOrders cuts a from/to range
--    into whole days, hours and minutes, so only the seconds at its very ends are counted in
--    orders, whatever the traffic of the window.
--
-- Writers are held off while the triggers change and the backfills read.
LOCK TABLE orders, addresses IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE address_pool_state (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  -- The next derivation index of the pool's chain (m/44'/195'/0'/0/i) nobody has reserved yet.
  next_index  integer NOT NULL CHECK (next_index >= 0)
);
INSERT INTO address_pool_state (id, next_index)
SELECT true, coalesce(max(derivation_index), -1) + 1 FROM addresses;

-- The filler reserves its batch in a short transaction of its own, derives it with no lock held
-- (a second or more of CPU for a large batch) and inserts it with the reservation's deletion. A
-- filler that died in between leaves its reservation behind: the next filler run derives and
-- inserts it after a minute, so the indexes stay contiguous (next_index = addresses of the order
-- branch + reserved, which check-rollups verifies).
CREATE TABLE address_pool_reservations (
  from_index   integer PRIMARY KEY,
  count        integer NOT NULL CHECK (count > 0),
  reserved_at  timestamptz NOT NULL
);

CREATE TABLE address_pool_counts (
  slot   integer PRIMARY KEY,
  free   bigint NOT NULL,
  taken  bigint NOT NULL,
  total  bigint NOT NULL
);
CREATE SEQUENCE address_pool_counts_overflow_slot START 1000;
-- 16 slots; a statement that finds all 16 held by other transactions adds a new one instead.
INSERT INTO address_pool_counts (slot, free, taken, total)
SELECT s, 0, 0, 0 FROM generate_series(0, 15) AS s;
UPDATE address_pool_counts SET
  free = (SELECT count(*) FROM addresses WHERE status = 'free'),
  taken = (SELECT count(*) FROM addresses WHERE status = 'allocated'),
  total = (SELECT count(derivation_index) FROM addresses)
WHERE slot = 0;
ALTER TABLE address_pool_counts SET (
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_cost_delay = 0
);

CREATE FUNCTION address_pool_counts_add(d_free bigint, d_taken bigint, d_total bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  picked integer;
BEGIN
  IF d_free = 0 AND d_taken = 0 AND d_total = 0 THEN
    RETURN;
  END IF;
  SELECT slot INTO picked FROM address_pool_counts ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED;
  IF picked IS NULL THEN
    INSERT INTO address_pool_counts (slot, free, taken, total)
    VALUES (nextval('address_pool_counts_overflow_slot'), d_free, d_taken, d_total);
  ELSE
    UPDATE address_pool_counts
    SET free = free + d_free, taken = taken + d_taken, total = total + d_total
    WHERE slot = picked;
  END IF;
END $$;

-- total counts the pool's branch only (derivation_index); static addresses (DESIGN.md 15, migration
-- 0012: status 'static', static_index) are never free and never in the pool.
CREATE FUNCTION address_pool_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM address_pool_counts_add(
    (SELECT count(*) FROM new_addresses WHERE status = 'free'),
    (SELECT count(*) FROM new_addresses WHERE status = 'allocated'),
    (SELECT count(derivation_index) FROM new_addresses));
  RETURN NULL;
END $$;

CREATE FUNCTION address_pool_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d_free bigint;
  d_taken bigint;
BEGIN
  SELECT coalesce(sum((n.status = 'free')::int - (o.status = 'free')::int), 0),
         coalesce(sum((o.status = 'free' AND n.status <> 'free')::int), 0)
  INTO d_free, d_taken
  FROM old_addresses o JOIN new_addresses n ON n.id = o.id
  WHERE o.status IS DISTINCT FROM n.status;
  PERFORM address_pool_counts_add(d_free, d_taken, 0);
  RETURN NULL;
END $$;

CREATE FUNCTION address_pool_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM address_pool_counts_add(
    -(SELECT count(*) FROM old_addresses WHERE status = 'free'),
    0,
    -(SELECT count(derivation_index) FROM old_addresses));
  RETURN NULL;
END $$;

CREATE TRIGGER address_pool_insert AFTER INSERT ON addresses
  REFERENCING NEW TABLE AS new_addresses FOR EACH STATEMENT EXECUTE FUNCTION address_pool_on_insert();
CREATE TRIGGER address_pool_update AFTER UPDATE ON addresses
  REFERENCING OLD TABLE AS old_addresses NEW TABLE AS new_addresses
  FOR EACH STATEMENT EXECUTE FUNCTION address_pool_on_update();
CREATE TRIGGER address_pool_delete AFTER DELETE ON addresses
  REFERENCING OLD TABLE AS old_addresses FOR EACH STATEMENT EXECUTE FUNCTION address_pool_on_delete();

-- Order counts per UTC minute (created_at truncated, as a UTC timestamp), like the hourly ones.
CREATE TABLE order_rollups_minutely (
  minute       timestamp NOT NULL,
  merchant_id  uuid NOT NULL,
  status       text NOT NULL,
  order_count  bigint NOT NULL,
  PRIMARY KEY (minute, merchant_id, status)
);
-- A merchant's minutes (the merchant list's totals) without stepping over every other merchant's.
CREATE INDEX order_rollups_minutely_merchant_idx ON order_rollups_minutely (merchant_id, minute);
-- The same for the hours, which 0004 keyed by hour first only.
CREATE INDEX order_rollups_hourly_merchant_idx ON order_rollups_hourly (merchant_id, hour);

-- The deltas are keyed by minute now; hour and day are truncations of it.
CREATE OR REPLACE FUNCTION order_rollups_add(deltas jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO order_rollups_minutely AS r (minute, merchant_id, status, order_count)
  SELECT d.minute, d.merchant_id, d.status, sum(d.n)
  FROM jsonb_to_recordset(deltas) AS d(minute timestamp, merchant_id uuid, status text, n bigint, amount numeric)
  GROUP BY 1, 2, 3
  HAVING sum(d.n) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (minute, merchant_id, status) DO UPDATE SET order_count = r.order_count + excluded.order_count;
  INSERT INTO order_rollups_hourly AS r (hour, merchant_id, status, order_count)
  SELECT date_trunc('hour', d.minute), d.merchant_id, d.status, sum(d.n)
  FROM jsonb_to_recordset(deltas) AS d(minute timestamp, merchant_id uuid, status text, n bigint, amount numeric)
  GROUP BY 1, 2, 3
  HAVING sum(d.n) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (hour, merchant_id, status) DO UPDATE SET order_count = r.order_count + excluded.order_count;
  INSERT INTO order_rollups_daily AS r (day, merchant_id, status, order_count, amount_received)
  SELECT d.minute::date, d.merchant_id, d.status, sum(d.n), sum(d.amount)
  FROM jsonb_to_recordset(deltas) AS d(minute timestamp, merchant_id uuid, status text, n bigint, amount numeric)
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (day, merchant_id, status) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received;
  INSERT INTO order_rollups_total AS r (merchant_id, status, order_count, amount_received)
  SELECT d.merchant_id, d.status, sum(d.n), sum(d.amount)
  FROM jsonb_to_recordset(deltas) AS d(minute timestamp, merchant_id uuid, status text, n bigint, amount numeric)
  GROUP BY d.merchant_id, d.status
  ORDER BY d.merchant_id, d.status
  ON CONFLICT (merchant_id, status) DO UPDATE
    SET order_count = r.order_count + excluded.order_count,
        amount_received = r.amount_received + excluded.amount_received;
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

CREATE OR REPLACE FUNCTION order_rollups_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(jsonb_build_object('minute', minute, 'merchant_id', merchant_id, 'status', status,
           'n', n, 'amount', amount) ORDER BY minute, merchant_id, status)
  INTO deltas
  FROM (
    SELECT minute, merchant_id, status, sum(n) AS n, sum(amount) AS amount
    FROM (
      SELECT date_trunc('minute', o.created_at AT TIME ZONE 'UTC') AS minute, o.merchant_id, o.status,
             -1 AS n, -o.amount_received AS amount
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status, o.amount_received, o.merchant_id, o.created_at)
            IS DISTINCT FROM (n.status, n.amount_received, n.merchant_id, n.created_at)
      UNION ALL
      SELECT date_trunc('minute', n.created_at AT TIME ZONE 'UTC'), n.merchant_id, n.status, 1, n.amount_received
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status, o.amount_received, o.merchant_id, o.created_at)
            IS DISTINCT FROM (n.status, n.amount_received, n.merchant_id, n.created_at)
    ) AS change
    GROUP BY minute, merchant_id, status
    HAVING sum(n) <> 0 OR sum(amount) <> 0
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
           'n', -n, 'amount', -amount) ORDER BY minute, merchant_id, status)
  INTO deltas
  FROM (
    SELECT date_trunc('minute', created_at AT TIME ZONE 'UTC') AS minute, merchant_id, status, count(*) AS n,
           sum(amount_received) AS amount
    FROM old_orders
    GROUP BY 1, 2, 3
  ) AS delta;
  IF deltas IS NOT NULL THEN
    PERFORM order_rollups_add(deltas);
  END IF;
  RETURN NULL;
END $$;

INSERT INTO order_rollups_minutely (minute, merchant_id, status, order_count)
SELECT date_trunc('minute', created_at AT TIME ZONE 'UTC'), merchant_id, status, count(*)
FROM orders
GROUP BY 1, 2, 3;
