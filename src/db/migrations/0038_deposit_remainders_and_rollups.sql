-- Static deposits of 18-decimal tokens keep their sub-micro remainder, and the deposit rollups are
-- keyed by chain and currency (issue 40; DESIGN.md 15 and 16).
--
-- A deposit credits whole micro-units (`amount`); what an 18-decimal token carried below one
-- micro-unit is kept on the deposit in the token's own smallest units (`remainder`, 0 to
-- 10^12 - 1 for 18 decimals), with the token's decimals (`token_decimals`) so that the reads can show
-- it as an exact decimal, as stray transfers keep theirs (migration 0033). Never credited, never
-- dropped from the books: amount x 10^(token_decimals - 6) + remainder is what the chain moved.
-- Rows before this migration were 6-decimal tokens or credited without their tail; the defaults say
-- "no remainder, 6 decimals" (a constant default is stored in the catalogue: no table rewrite).
--
-- deposit_rollups_daily and deposit_rollups_total gain the deposit's chain and currency in their
-- key, so the admin stats' chain and currency filters apply to deposit figures and never add one
-- currency's amounts to another's. The triggers of 0012 are replaced to carry both in their deltas
-- (a deposit's chain and currency never change, but an update of either would still move its
-- counts), and the two tables are recounted from deposits. Writers are held off while the functions
-- change and the recount reads.
LOCK TABLE deposits IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE deposits ADD COLUMN IF NOT EXISTS remainder numeric(38, 0) NOT NULL DEFAULT 0
  CHECK (remainder >= 0);
ALTER TABLE deposits ADD COLUMN IF NOT EXISTS token_decimals smallint NOT NULL DEFAULT 6
  CHECK (token_decimals BETWEEN 0 AND 36);

ALTER TABLE deposit_rollups_daily ADD COLUMN chain text NOT NULL DEFAULT 'tron';
ALTER TABLE deposit_rollups_daily ADD COLUMN currency text NOT NULL DEFAULT 'USDT';
ALTER TABLE deposit_rollups_daily DROP CONSTRAINT deposit_rollups_daily_pkey;
ALTER TABLE deposit_rollups_daily ADD PRIMARY KEY (day, merchant_id, status, chain, currency);

ALTER TABLE deposit_rollups_total ADD COLUMN chain text NOT NULL DEFAULT 'tron';
ALTER TABLE deposit_rollups_total ADD COLUMN currency text NOT NULL DEFAULT 'USDT';
ALTER TABLE deposit_rollups_total DROP CONSTRAINT deposit_rollups_total_pkey;
ALTER TABLE deposit_rollups_total ADD PRIMARY KEY (merchant_id, status, chain, currency);

CREATE OR REPLACE FUNCTION deposit_rollups_add(deltas jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO deposit_rollups_daily AS r (day, merchant_id, status, chain, currency, deposit_count, amount)
  SELECT d.day, d.merchant_id, d.status, d.chain, d.currency, sum(d.n), sum(d.amount)
  FROM jsonb_to_recordset(deltas)
    AS d(day date, merchant_id uuid, status text, chain text, currency text, n bigint, amount numeric)
  GROUP BY 1, 2, 3, 4, 5
  HAVING sum(d.n) <> 0 OR sum(d.amount) <> 0
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (day, merchant_id, status, chain, currency) DO UPDATE
    SET deposit_count = r.deposit_count + excluded.deposit_count, amount = r.amount + excluded.amount;
  INSERT INTO deposit_rollups_total AS r (merchant_id, status, chain, currency, deposit_count, amount)
  SELECT d.merchant_id, d.status, d.chain, d.currency, sum(d.n), sum(d.amount)
  FROM jsonb_to_recordset(deltas)
    AS d(day date, merchant_id uuid, status text, chain text, currency text, n bigint, amount numeric)
  GROUP BY 1, 2, 3, 4
  HAVING sum(d.n) <> 0 OR sum(d.amount) <> 0
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (merchant_id, status, chain, currency) DO UPDATE
    SET deposit_count = r.deposit_count + excluded.deposit_count, amount = r.amount + excluded.amount;
$$;

CREATE OR REPLACE FUNCTION deposit_rollups_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(jsonb_build_object('day', (created_at AT TIME ZONE 'UTC')::date,
           'merchant_id', merchant_id, 'status', status, 'chain', chain, 'currency', currency,
           'n', 1, 'amount', amount))
  INTO deltas FROM new_deposits;
  IF deltas IS NOT NULL THEN
    PERFORM deposit_rollups_add(deltas);
  END IF;
  RETURN NULL;
END $$;

-- SET enable_nestloop = off as migration 0014 set it: CREATE OR REPLACE drops a function's settings.
CREATE OR REPLACE FUNCTION deposit_rollups_on_update() RETURNS trigger LANGUAGE plpgsql
SET enable_nestloop = off AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(change) INTO deltas FROM (
    SELECT jsonb_build_object('day', (o.created_at AT TIME ZONE 'UTC')::date, 'merchant_id', o.merchant_id,
             'status', o.status, 'chain', o.chain, 'currency', o.currency, 'n', -1, 'amount', -o.amount) AS change
    FROM old_deposits o JOIN new_deposits n ON n.id = o.id
    WHERE (o.status, o.amount, o.merchant_id, o.created_at, o.chain, o.currency)
          IS DISTINCT FROM (n.status, n.amount, n.merchant_id, n.created_at, n.chain, n.currency)
    UNION ALL
    SELECT jsonb_build_object('day', (n.created_at AT TIME ZONE 'UTC')::date, 'merchant_id', n.merchant_id,
             'status', n.status, 'chain', n.chain, 'currency', n.currency, 'n', 1, 'amount', n.amount)
    FROM old_deposits o JOIN new_deposits n ON n.id = o.id
    WHERE (o.status, o.amount, o.merchant_id, o.created_at, o.chain, o.currency)
          IS DISTINCT FROM (n.status, n.amount, n.merchant_id, n.created_at, n.chain, n.currency)
  ) AS changes;
  IF deltas IS NOT NULL THEN
    PERFORM deposit_rollups_add(deltas);
  END IF;
  RETURN NULL;
END $$;

-- The recount: one pass over deposits for the daily rows, the totals from them.
DELETE FROM deposit_rollups_daily;
DELETE FROM deposit_rollups_total;
INSERT INTO deposit_rollups_daily (day, merchant_id, status, chain, currency, deposit_count, amount)
SELECT (created_at AT TIME ZONE 'UTC')::date, merchant_id, status, chain, currency, count(*), sum(amount)
FROM deposits
GROUP BY 1, 2, 3, 4, 5;
INSERT INTO deposit_rollups_total (merchant_id, status, chain, currency, deposit_count, amount)
SELECT merchant_id, status, chain, currency, sum(deposit_count), sum(amount)
FROM deposit_rollups_daily
GROUP BY 1, 2, 3, 4;
