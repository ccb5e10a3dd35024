-- Static deposit addresses on EVM chains (DESIGN.md 15 and 16).
--
-- A static deposit address belongs to a chain family: TRON's on m/44'/195'/0'/1/i, the EVM family's
-- on m/44'/60'/0'/1/i, one address serving every enabled EVM chain. A customer has one address per
-- family, so (merchant_id, customer_ref) is unique per family, and each family's static branch has
-- its own index counter from 0 (the addresses' static_index is unique per family since 0022).
-- `chain` and `currency` are what the address was asked for when created (TRON USDT before this
-- migration); every enabled token of every chain of its family is credited to it all the same.
--
-- A deposit names the currency it was paid in; a deposit is unique per chain by (tx_hash,
-- log_index): one address paid on two chains is two deposits. Rows written before this migration
-- were TRON USDT, which the defaults say (a constant default is stored in the catalogue, so these
-- ALTERs rewrite no table).
ALTER TABLE deposit_addresses ADD COLUMN IF NOT EXISTS family text NOT NULL DEFAULT 'tron'
  CHECK (family IN ('tron', 'evm'));
ALTER TABLE deposit_addresses ADD COLUMN IF NOT EXISTS chain text NOT NULL DEFAULT 'tron';
ALTER TABLE deposit_addresses ADD COLUMN IF NOT EXISTS currency text NOT NULL DEFAULT 'USDT';
ALTER TABLE deposit_addresses DROP CONSTRAINT IF EXISTS deposit_addresses_merchant_id_customer_ref_key;
CREATE UNIQUE INDEX IF NOT EXISTS deposit_addresses_merchant_ref_family_key
  ON deposit_addresses (merchant_id, customer_ref, family);

-- One row per family: the next static index of that family's branch.
ALTER TABLE static_index_counter ADD COLUMN IF NOT EXISTS family text NOT NULL DEFAULT 'tron';
ALTER TABLE static_index_counter DROP CONSTRAINT static_index_counter_pkey;
ALTER TABLE static_index_counter DROP COLUMN id;
ALTER TABLE static_index_counter ADD CONSTRAINT static_index_counter_pkey PRIMARY KEY (family);
INSERT INTO static_index_counter (family, next_index) VALUES ('evm', 0) ON CONFLICT DO NOTHING;

ALTER TABLE deposits ADD COLUMN IF NOT EXISTS currency text NOT NULL DEFAULT 'USDT';
DROP INDEX IF EXISTS deposits_chain_uq;
CREATE UNIQUE INDEX deposits_chain_uq ON deposits (chain, tx_hash, log_index) WHERE status <> 'reverted';
