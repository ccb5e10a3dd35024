-- Balances per currency (DESIGN.md 16 "Balances", docs/ledger.md): a merchant's balance is kept per
-- currency (USDT, USDC), whatever chain the money arrived on, as an exchange account is.
--
-- Every posting names the currency of the money it moves, and a ledger transaction balances in each
-- currency (check-ledger proves it). merchant_balances holds one row per (merchant, currency); its
-- CHECKs judge each currency alone, so a USDT payout can never spend USDC money.
--
-- Rows written before this migration were all credited and reserved as one number: they become USDT,
-- which is what every TRON-only deployment holds. A deployment that already confirmed USDC orders
-- on an EVM chain before 0030 sees them as check-ledger recount differences (the recount is per
-- currency), never silently moved between currencies.
--
-- Stray transfers record the token's currency as the scanner saw it (older rows: USDT, the only
-- token watched before EVM chains), so a stray's credit goes to the right balance; deposits carry
-- theirs from 0032. A constant default is stored in the catalogue: these ADD COLUMNs rewrite no table.
ALTER TABLE ledger_postings ADD COLUMN currency text NOT NULL DEFAULT 'USDT'
  CHECK (currency IN ('USDT', 'USDC'));
ALTER TABLE ledger_postings ALTER COLUMN currency DROP DEFAULT;

ALTER TABLE merchant_balances ADD COLUMN currency text NOT NULL DEFAULT 'USDT'
  CHECK (currency IN ('USDT', 'USDC'));
ALTER TABLE merchant_balances ALTER COLUMN currency DROP DEFAULT;
ALTER TABLE merchant_balances DROP CONSTRAINT merchant_balances_pkey;
ALTER TABLE merchant_balances ADD PRIMARY KEY (merchant_id, currency);

ALTER TABLE stray_transfers ADD COLUMN IF NOT EXISTS currency text NOT NULL DEFAULT 'USDT';
