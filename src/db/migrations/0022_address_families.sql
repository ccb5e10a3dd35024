-- One address pool per chain family (DESIGN.md 16, "Addresses").
--
-- A family is one way of deriving and writing addresses: `tron` (m/44'/195'/0'/0/i, base58) and
-- `evm` (m/44'/60'/0'/0/i, lowercase 0x hex), shared by every EVM chain. Each family's pool has its
-- own derivation indexes from 0, its own free list, counters, next index and reservations; an
-- order claims from the pool of its chain's family, so one EVM address is held by one order at a
-- time across all EVM chains. Rows written before families existed are TRON's, which the defaults
-- say (a constant default is stored in the catalogue: no table is rewritten).
--
-- The pool's state rows of a family are created on first use (the filler's reservation is an
-- upsert; the counters' function adds a slot for a family that has none), so a TRON-only
-- deployment keeps exactly the rows it had.
LOCK TABLE addresses IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE addresses ADD COLUMN IF NOT EXISTS family text NOT NULL DEFAULT 'tron'
  CHECK (family IN ('tron', 'evm'));
ALTER TABLE addresses DROP CONSTRAINT IF EXISTS addresses_derivation_index_key;
CREATE UNIQUE INDEX addresses_derivation_index_key ON addresses (family, derivation_index);
DROP INDEX IF EXISTS addresses_static_index_key;
CREATE UNIQUE INDEX addresses_static_index_key ON addresses (family, static_index)
  WHERE static_index IS NOT NULL;

-- The free list: a claim walks one family's entries in index order from its floor.
ALTER TABLE free_addresses ADD COLUMN IF NOT EXISTS family text NOT NULL DEFAULT 'tron';
ALTER TABLE free_addresses DROP CONSTRAINT free_addresses_pkey;
ALTER TABLE free_addresses ADD CONSTRAINT free_addresses_pkey PRIMARY KEY (family, derivation_index);

-- The next unreserved index, one row per family.
ALTER TABLE address_pool_state ADD COLUMN IF NOT EXISTS family text NOT NULL DEFAULT 'tron';
ALTER TABLE address_pool_state DROP CONSTRAINT address_pool_state_pkey;
ALTER TABLE address_pool_state DROP COLUMN id;
ALTER TABLE address_pool_state ADD CONSTRAINT address_pool_state_pkey PRIMARY KEY (family);

ALTER TABLE address_pool_reservations ADD COLUMN IF NOT EXISTS family text NOT NULL DEFAULT 'tron';
ALTER TABLE address_pool_reservations DROP CONSTRAINT address_pool_reservations_pkey;
ALTER TABLE address_pool_reservations ADD CONSTRAINT address_pool_reservations_pkey
  PRIMARY KEY (family, from_index);

-- The counters: the slots are per family (slot numbers stay unique across families, the overflow
-- sequence serving all of them). Readers that want the whole pool sum every row, as before.
ALTER TABLE address_pool_counts ADD COLUMN IF NOT EXISTS family text NOT NULL DEFAULT 'tron';

CREATE FUNCTION address_pool_counts_add(fam text, d_free bigint, d_taken bigint, d_total bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  picked integer;
BEGIN
  IF d_free = 0 AND d_taken = 0 AND d_total = 0 THEN
    RETURN;
  END IF;
  SELECT slot INTO picked FROM address_pool_counts WHERE family = fam
  ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED;
  IF picked IS NULL THEN
    INSERT INTO address_pool_counts (slot, family, free, taken, total)
    VALUES (nextval('address_pool_counts_overflow_slot'), fam, d_free, d_taken, d_total);
  ELSE
    UPDATE address_pool_counts
    SET free = free + d_free, taken = taken + d_taken, total = total + d_total
    WHERE slot = picked;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION address_pool_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  INSERT INTO free_addresses (family, derivation_index, address_id, address)
  SELECT family, derivation_index, id, address FROM new_addresses WHERE status = 'free';
  FOR r IN
    SELECT family, count(*) FILTER (WHERE status = 'free') AS d_free,
           count(*) FILTER (WHERE status = 'allocated') AS d_taken,
           count(derivation_index) AS d_total
    FROM new_addresses GROUP BY family
  LOOP
    PERFORM address_pool_counts_add(r.family, r.d_free, r.d_taken, r.d_total);
  END LOOP;
  RETURN NULL;
END $$;

-- As in 0016: the addresses that left the pool are collected first, then deleted from the list by
-- its primary key (family, then = ANY), never by a join of the list with the transition tables.
CREATE OR REPLACE FUNCTION address_pool_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT n.family,
           coalesce(sum((n.status = 'free')::int - (o.status = 'free')::int), 0) AS d_free,
           coalesce(sum((o.status = 'free' AND n.status <> 'free')::int), 0) AS d_taken,
           array_agg(o.derivation_index) FILTER (WHERE o.status = 'free' AND n.status <> 'free') AS unlisted
    FROM old_addresses o JOIN new_addresses n ON n.id = o.id
    WHERE o.status IS DISTINCT FROM n.status
    GROUP BY n.family
  LOOP
    IF r.d_taken > 0 THEN
      DELETE FROM free_addresses WHERE family = r.family AND derivation_index = ANY (r.unlisted);
    END IF;
    IF r.d_free + r.d_taken > 0 THEN
      INSERT INTO free_addresses (family, derivation_index, address_id, address)
      SELECT n.family, n.derivation_index, n.id, n.address
      FROM old_addresses o JOIN new_addresses n ON n.id = o.id
      WHERE n.family = r.family AND o.status <> 'free' AND n.status = 'free';
    END IF;
    PERFORM address_pool_counts_add(r.family, r.d_free, r.d_taken, 0);
  END LOOP;
  RETURN NULL;
END $$;
ALTER FUNCTION address_pool_on_update() SET enable_nestloop = off;

CREATE OR REPLACE FUNCTION address_pool_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT family, count(*) FILTER (WHERE status = 'free') AS d_free,
           count(derivation_index) AS d_total,
           array_agg(derivation_index) FILTER (WHERE status = 'free') AS unlisted
    FROM old_addresses GROUP BY family
  LOOP
    IF r.d_free > 0 THEN
      DELETE FROM free_addresses WHERE family = r.family AND derivation_index = ANY (r.unlisted);
    END IF;
    PERFORM address_pool_counts_add(r.family, -r.d_free, 0, -r.d_total);
  END LOOP;
  RETURN NULL;
END $$;

DROP FUNCTION address_pool_counts_add(bigint, bigint, bigint);
