-- Static deposit addresses and their deposits (DESIGN.md 15).
--
-- A static address is a row of `addresses` like an order address, derived on a branch of its own:
-- derivation_index is the order branch (m/44'/195'/0'/0/i), static_index the static branch
-- (m/44'/195'/0'/1/i); exactly one of them is set. The order branch's code (pool filler, inline
-- derivation, pool counts: max(derivation_index) + 1) keeps reading derivation_index alone, so the
-- two branches never share an index counter. A static address has status 'static': never free,
-- never claimed, never released.
ALTER TABLE addresses ALTER COLUMN derivation_index DROP NOT NULL;
ALTER TABLE addresses ADD COLUMN static_index integer UNIQUE CHECK (static_index >= 0);
ALTER TABLE addresses ADD CONSTRAINT addresses_one_branch
  CHECK ((derivation_index IS NULL) <> (static_index IS NULL));
ALTER TABLE addresses DROP CONSTRAINT IF EXISTS addresses_status_check;
ALTER TABLE addresses ADD CONSTRAINT addresses_status_check
  CHECK (status IN ('free', 'allocated', 'static'));

-- The static branch's next index: a row locked by the creating transaction (not a sequence, which
-- would skip the index of a rolled-back creation).
CREATE TABLE static_index_counter (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  next_index  integer NOT NULL CHECK (next_index >= 0)
);
INSERT INTO static_index_counter (id, next_index) VALUES (true, 0);

CREATE TABLE deposit_addresses (
  id               uuid PRIMARY KEY,
  merchant_id      uuid NOT NULL REFERENCES merchants (id),
  customer_ref     text NOT NULL CHECK (char_length(customer_ref) BETWEEN 1 AND 128),
  address_id       bigint NOT NULL UNIQUE REFERENCES addresses (id),
  address          text NOT NULL UNIQUE,
  status           text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  callback_url     text NOT NULL,
  metadata         jsonb,
  notify_detected  boolean NOT NULL DEFAULT false,
  disabled_at      timestamptz,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  UNIQUE (merchant_id, customer_ref)
);
CREATE INDEX deposit_addresses_created_idx ON deposit_addresses (created_at DESC, id DESC);
CREATE INDEX deposit_addresses_merchant_created_idx
  ON deposit_addresses (merchant_id, created_at DESC, id DESC);
CREATE INDEX deposit_addresses_customer_ref_idx ON deposit_addresses (customer_ref);

-- One row per USDT Transfer log to a static address. A fork that drops it marks it 'reverted' (the
-- row stays, for the record); the same log seen again on the new branch is a new row, so the
-- chain's identity (tx_hash, log_index) is unique among the deposits that are not reverted.
-- below_minimum and address_status are fixed when the deposit is detected.
CREATE TABLE deposits (
  id                  uuid PRIMARY KEY,
  deposit_address_id  uuid NOT NULL REFERENCES deposit_addresses (id),
  merchant_id         uuid NOT NULL REFERENCES merchants (id),
  tx_hash             text NOT NULL,
  log_index           integer NOT NULL,
  block_number        bigint NOT NULL,
  block_hash          text NOT NULL,
  block_timestamp     timestamptz NOT NULL,
  from_address        text NOT NULL,
  to_address          text NOT NULL,
  amount              numeric(38, 0) NOT NULL CHECK (amount > 0),
  status              text NOT NULL CHECK (status IN ('detected', 'confirmed', 'reverted')),
  below_minimum       boolean NOT NULL,
  address_status      text NOT NULL CHECK (address_status IN ('active', 'disabled')),
  -- the sweep (settlement, round) that moved this deposit to the cold wallet
  settlement_id       uuid,
  sweep_round         integer,
  detected_at         timestamptz NOT NULL,
  confirmed_at        timestamptz,
  reverted_at         timestamptz,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);
CREATE UNIQUE INDEX deposits_chain_uq ON deposits (tx_hash, log_index) WHERE status <> 'reverted';
CREATE INDEX deposits_address_idx ON deposits (deposit_address_id, created_at DESC, id DESC);
CREATE INDEX deposits_merchant_idx ON deposits (merchant_id, created_at DESC, id DESC);
CREATE INDEX deposits_created_idx ON deposits (created_at DESC, id DESC);
CREATE INDEX deposits_detected_idx ON deposits (block_number) WHERE status = 'detected';
CREATE INDEX deposits_unswept_idx ON deposits (deposit_address_id)
  WHERE status = 'confirmed' AND settlement_id IS NULL;

-- Events of a deposit (deposit_detected, deposit_confirmed, deposit_reverted, webhook_delivered,
-- webhook_failed) and its incidents (deposit_to_disabled_address).
CREATE TABLE deposit_events (
  id          uuid PRIMARY KEY,
  deposit_id  uuid NOT NULL REFERENCES deposits (id),
  event_type  text NOT NULL,
  payload     jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL
);
CREATE INDEX deposit_events_deposit_idx ON deposit_events (deposit_id, created_at, id);
CREATE INDEX deposit_events_incident_idx ON deposit_events (created_at DESC)
  WHERE event_type IN ('deposit_to_disabled_address', 'webhook_failed');

-- The webhook outbox carries deposit webhooks too: a delivery belongs to an order or to a deposit.
ALTER TABLE webhook_deliveries ALTER COLUMN order_id DROP NOT NULL;
ALTER TABLE webhook_deliveries ALTER COLUMN order_event_id DROP NOT NULL;
ALTER TABLE webhook_deliveries ADD COLUMN IF NOT EXISTS deposit_id uuid REFERENCES deposits (id);
CREATE INDEX webhook_deliveries_deposit_idx ON webhook_deliveries (deposit_id, created_at)
  WHERE deposit_id IS NOT NULL;

-- Deposit rollups (the pattern of 0004): counters per merchant x UTC day of detection x status, and
-- the same without the day, kept by statement-level triggers in the deposit's own transaction with
-- additive deltas. `stablegate check-rollups` recounts them.
CREATE TABLE deposit_rollups_daily (
  day           date NOT NULL,
  merchant_id   uuid NOT NULL,
  status        text NOT NULL,
  deposit_count bigint NOT NULL,
  amount        numeric(38, 0) NOT NULL,
  PRIMARY KEY (day, merchant_id, status)
);
CREATE TABLE deposit_rollups_total (
  merchant_id   uuid NOT NULL,
  status        text NOT NULL,
  deposit_count bigint NOT NULL,
  amount        numeric(38, 0) NOT NULL,
  PRIMARY KEY (merchant_id, status)
);

CREATE FUNCTION deposit_rollups_add(deltas jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO deposit_rollups_daily AS r (day, merchant_id, status, deposit_count, amount)
  SELECT d.day, d.merchant_id, d.status, sum(d.n), sum(d.amount)
  FROM jsonb_to_recordset(deltas) AS d(day date, merchant_id uuid, status text, n bigint, amount numeric)
  GROUP BY 1, 2, 3
  HAVING sum(d.n) <> 0 OR sum(d.amount) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (day, merchant_id, status) DO UPDATE
    SET deposit_count = r.deposit_count + excluded.deposit_count, amount = r.amount + excluded.amount;
  INSERT INTO deposit_rollups_total AS r (merchant_id, status, deposit_count, amount)
  SELECT d.merchant_id, d.status, sum(d.n), sum(d.amount)
  FROM jsonb_to_recordset(deltas) AS d(day date, merchant_id uuid, status text, n bigint, amount numeric)
  GROUP BY 1, 2
  HAVING sum(d.n) <> 0 OR sum(d.amount) <> 0
  ORDER BY 1, 2
  ON CONFLICT (merchant_id, status) DO UPDATE
    SET deposit_count = r.deposit_count + excluded.deposit_count, amount = r.amount + excluded.amount;
$$;

CREATE FUNCTION deposit_rollups_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(jsonb_build_object('day', (created_at AT TIME ZONE 'UTC')::date,
           'merchant_id', merchant_id, 'status', status, 'n', 1, 'amount', amount))
  INTO deltas FROM new_deposits;
  IF deltas IS NOT NULL THEN
    PERFORM deposit_rollups_add(deltas);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION deposit_rollups_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deltas jsonb;
BEGIN
  SELECT jsonb_agg(change) INTO deltas FROM (
    SELECT jsonb_build_object('day', (o.created_at AT TIME ZONE 'UTC')::date, 'merchant_id', o.merchant_id,
             'status', o.status, 'n', -1, 'amount', -o.amount) AS change
    FROM old_deposits o JOIN new_deposits n ON n.id = o.id
    WHERE (o.status, o.amount, o.merchant_id, o.created_at)
          IS DISTINCT FROM (n.status, n.amount, n.merchant_id, n.created_at)
    UNION ALL
    SELECT jsonb_build_object('day', (n.created_at AT TIME ZONE 'UTC')::date, 'merchant_id', n.merchant_id,
             'status', n.status, 'n', 1, 'amount', n.amount)
    FROM old_deposits o JOIN new_deposits n ON n.id = o.id
    WHERE (o.status, o.amount, o.merchant_id, o.created_at)
          IS DISTINCT FROM (n.status, n.amount, n.merchant_id, n.created_at)
  ) AS changes;
  IF deltas IS NOT NULL THEN
    PERFORM deposit_rollups_add(deltas);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER deposit_rollups_insert AFTER INSERT ON deposits
  REFERENCING NEW TABLE AS new_deposits FOR EACH STATEMENT EXECUTE FUNCTION deposit_rollups_on_insert();
CREATE TRIGGER deposit_rollups_update AFTER UPDATE ON deposits
  REFERENCING OLD TABLE AS old_deposits NEW TABLE AS new_deposits
  FOR EACH STATEMENT EXECUTE FUNCTION deposit_rollups_on_update();
