-- Address claims that do not grow every index of `addresses`.
--
-- A claim turned a free address 'allocated'. `status` was the predicate of the claim's partial
-- index (addresses_free_claim_idx, 0002), so that UPDATE could never be HOT: every claim wrote a
-- new entry into every index of `addresses`, including the unique index on `address`, at a random
-- place in it (addresses are hashes). Once that index outgrew shared_buffers, each claim read and
-- dirtied a random page of it, and order creation slowed with the number of addresses ever
-- derived (10-minute run at ~5,000 orders/s: -22 % from the first minute to the last). Every claim
-- also left a dead entry in each index, which the filler's vacuums had to read every index of the
-- whole table to remove.
--
-- Now the free addresses are listed in a table of their own, kept by the pool triggers of 0013 in
-- the same statement as the change of `addresses` (so the list is exactly the addresses with
-- status 'free', which check-rollups verifies). A claim reads and locks the first rows of this small
-- table from the claim floor up; the statement-level trigger deletes them when the addresses turn
-- 'allocated'. No index of `addresses` covers a column a claim, a release or a stray's hold changes
-- (status, order_id, last_order_id, allocated_at, released_at, quarantine_until), so those UPDATEs
-- are HOT where the page has room. A creation statement binds up to 64 consecutive addresses, on
-- one or two pages, and a page cannot be pruned of a statement's old versions while it runs, so a
-- page must hold a batch's new versions (about 120 bytes each, against about 90 for a free row)
-- beside its rows: fillfactor 50 leaves half of each page free (pages written from now on; at 70 a
-- batch of 32 found room for about 20). bench/order-supply.ts measured 94 % of the binds HOT.
--
-- No foreign key to `addresses`: the only writer is the trigger, and an RI check per row would be
-- the most expensive part of the list's upkeep.
LOCK TABLE addresses IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE free_addresses (
  derivation_index  integer PRIMARY KEY,
  address_id        bigint NOT NULL,
  address           text NOT NULL
);
INSERT INTO free_addresses (derivation_index, address_id, address)
SELECT derivation_index, id, address FROM addresses WHERE status = 'free' ORDER BY derivation_index;

-- Claims delete from the front of the list all the time: vacuum it early and unthrottled (it is a
-- few pages). The pool filler also vacuums it itself (PGlite has no autovacuum).
ALTER TABLE free_addresses SET (
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_cost_delay = 0
);

DROP INDEX IF EXISTS addresses_free_claim_idx;
-- 0003 made autovacuum visit `addresses` every 2,000 dead rows for the claim index's sake; with HOT
-- claims the page pruning that HOT does clears most dead versions without a vacuum.
ALTER TABLE addresses RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,
  autovacuum_vacuum_cost_delay);
ALTER TABLE addresses SET (fillfactor = 50);

-- Every address of the pool has static_index NULL (0012), and the plain unique index on it took an
-- entry for each of them: an index of NULLs as large as the pool, written by every derivation. Only
-- static addresses need it.
ALTER TABLE addresses DROP CONSTRAINT addresses_static_index_key;
CREATE UNIQUE INDEX addresses_static_index_key ON addresses (static_index) WHERE static_index IS NOT NULL;

CREATE OR REPLACE FUNCTION address_pool_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO free_addresses (derivation_index, address_id, address)
  SELECT derivation_index, id, address FROM new_addresses WHERE status = 'free';
  PERFORM address_pool_counts_add(
    (SELECT count(*) FROM new_addresses WHERE status = 'free'),
    (SELECT count(*) FROM new_addresses WHERE status = 'allocated'),
    (SELECT count(derivation_index) FROM new_addresses));
  RETURN NULL;
END $$;

-- The addresses that left the pool are collected from the joined transition tables first, then
-- deleted from the list by its primary key (= ANY): a join of the list with the transition tables
-- would be a hash join over the whole list, since this function plans without nested loops (0014;
-- CREATE OR REPLACE drops that setting, so it is set again below).
CREATE OR REPLACE FUNCTION address_pool_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d_free bigint;
  d_taken bigint;
  unlisted integer[];
BEGIN
  SELECT coalesce(sum((n.status = 'free')::int - (o.status = 'free')::int), 0),
         coalesce(sum((o.status = 'free' AND n.status <> 'free')::int), 0),
         array_agg(o.derivation_index) FILTER (WHERE o.status = 'free' AND n.status <> 'free')
  INTO d_free, d_taken, unlisted
  FROM old_addresses o JOIN new_addresses n ON n.id = o.id
  WHERE o.status IS DISTINCT FROM n.status;
  IF d_taken > 0 THEN
    DELETE FROM free_addresses WHERE derivation_index = ANY (unlisted);
  END IF;
  IF d_free + d_taken > 0 THEN
    INSERT INTO free_addresses (derivation_index, address_id, address)
    SELECT n.derivation_index, n.id, n.address
    FROM old_addresses o JOIN new_addresses n ON n.id = o.id
    WHERE o.status <> 'free' AND n.status = 'free';
  END IF;
  PERFORM address_pool_counts_add(d_free, d_taken, 0);
  RETURN NULL;
END $$;
ALTER FUNCTION address_pool_on_update() SET enable_nestloop = off;

CREATE OR REPLACE FUNCTION address_pool_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM free_addresses
  WHERE derivation_index = ANY (ARRAY(SELECT derivation_index FROM old_addresses WHERE status = 'free'));
  PERFORM address_pool_counts_add(
    -(SELECT count(*) FROM old_addresses WHERE status = 'free'),
    0,
    -(SELECT count(derivation_index) FROM old_addresses));
  RETURN NULL;
END $$;
