-- Order resolution and stray transfers (DESIGN.md 4 and 13).

-- `cancelled`: a pending order the merchant or an operator called off (terminal, like expired).
ALTER TABLE orders DROP CONSTRAINT IF EXISTS orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check
  CHECK (status IN ('pending', 'detected', 'confirmed', 'underpaid', 'overpaid', 'completed', 'expired',
    'callback_failed', 'cancelled'));

-- The order an address last belonged to, kept when it is released (order_id is cleared then): a
-- stray transfer to a released address names it.
ALTER TABLE addresses ADD COLUMN last_order_id uuid REFERENCES orders (id);

-- A USDT transfer to one of our addresses that no order holds (a released address, or one never
-- handed out). Recorded, confirmed and fork-reverted like an order's transfer ('seen' rows above a
-- fork point are deleted), swept by the address's own settlement. (tx_hash, log_index) is the
-- chain's identity: a log is either an order's transfer or a stray, decided by the address's holder
-- when it was scanned. Attaching it to an order (resolution 'attached', order_id) also writes the
-- order's `transfers` row with the same identity.
CREATE TABLE stray_transfers (
  id                 uuid PRIMARY KEY,
  address_id         bigint NOT NULL REFERENCES addresses (id),
  tx_hash            text NOT NULL,
  log_index          integer NOT NULL,
  block_number       bigint NOT NULL,
  block_hash         text NOT NULL,
  block_timestamp    timestamptz NOT NULL,
  from_address       text NOT NULL,
  to_address         text NOT NULL,
  amount             numeric(38, 0) NOT NULL CHECK (amount > 0),
  status             text NOT NULL DEFAULT 'seen' CHECK (status IN ('seen', 'confirmed')),
  confirmed_at       timestamptz,
  -- the order the address last belonged to when the transfer arrived (null: never handed out)
  previous_order_id  uuid REFERENCES orders (id),
  resolution         text CHECK (resolution IN ('attached', 'dismissed', 'refunded')),
  -- the order it was attached to (resolution 'attached')
  order_id           uuid REFERENCES orders (id),
  resolution_reason  text,
  -- {kind, id?, label}: who resolved it
  resolved_by        jsonb,
  resolved_at        timestamptz,
  created_at         timestamptz NOT NULL,
  UNIQUE (tx_hash, log_index),
  CHECK ((resolution = 'attached') = (order_id IS NOT NULL))
);
CREATE INDEX stray_transfers_unconfirmed_idx ON stray_transfers (block_number) WHERE status = 'seen';
CREATE INDEX stray_transfers_address_idx ON stray_transfers (address_id, block_number);
CREATE INDEX stray_transfers_list_idx ON stray_transfers ((resolution IS NOT NULL), created_at DESC, id DESC);
CREATE INDEX stray_transfers_order_idx ON stray_transfers (order_id) WHERE order_id IS NOT NULL;

-- A settlement belongs to an order or, with order_id NULL, to an address (a stray balance; issue
-- 25's static deposit addresses). One settlement row per order, and one address-level row per
-- address; rounds repeat on the row as for orders.
ALTER TABLE settlements ALTER COLUMN order_id DROP NOT NULL;
ALTER TABLE settlements ADD COLUMN address_id bigint REFERENCES addresses (id);
UPDATE settlements s SET address_id = a.id FROM addresses a WHERE a.address = s.address;
CREATE UNIQUE INDEX settlements_address_level_idx ON settlements (address_id) WHERE order_id IS NULL;
ALTER TABLE settlements ADD CONSTRAINT settlements_owner_check
  CHECK (order_id IS NOT NULL OR address_id IS NOT NULL);
ALTER TABLE sweep_costs ALTER COLUMN order_id DROP NOT NULL;
ALTER TABLE sweep_costs ADD COLUMN address_id bigint REFERENCES addresses (id);

-- Stray counters for the admin reads, kept by a statement trigger with additive deltas like the
-- order rollups (0004): by resolution ('unresolved' for NULL) and confirmation status.
-- `stablegate check-rollups` recounts them.
CREATE TABLE stray_rollups (
  resolution  text NOT NULL,
  status      text NOT NULL,
  n           bigint NOT NULL,
  amount      numeric(38, 0) NOT NULL,
  PRIMARY KEY (resolution, status)
);

CREATE FUNCTION stray_rollups_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO stray_rollups AS r (resolution, status, n, amount)
    SELECT coalesce(resolution, 'unresolved'), status, -count(*), -sum(amount)
    FROM old_strays GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (resolution, status) DO UPDATE SET n = r.n + excluded.n, amount = r.amount + excluded.amount;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO stray_rollups AS r (resolution, status, n, amount)
    SELECT coalesce(resolution, 'unresolved'), status, count(*), sum(amount)
    FROM new_strays GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (resolution, status) DO UPDATE SET n = r.n + excluded.n, amount = r.amount + excluded.amount;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER stray_rollups_insert AFTER INSERT ON stray_transfers
  REFERENCING NEW TABLE AS new_strays FOR EACH STATEMENT EXECUTE FUNCTION stray_rollups_apply();
CREATE TRIGGER stray_rollups_update AFTER UPDATE ON stray_transfers
  REFERENCING OLD TABLE AS old_strays NEW TABLE AS new_strays
  FOR EACH STATEMENT EXECUTE FUNCTION stray_rollups_apply();
CREATE TRIGGER stray_rollups_delete AFTER DELETE ON stray_transfers
  REFERENCING OLD TABLE AS old_strays FOR EACH STATEMENT EXECUTE FUNCTION stray_rollups_apply();
