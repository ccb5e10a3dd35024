-- Orders on any enabled chain (DESIGN.md 16).
--
-- An order names its chain beside its currency; every row the scanner writes (a transfer to an
-- order, a stray transfer, a deposit) names the chain it was seen on. Rows written before chains
-- existed were all TRON, which the default says. A constant default is stored in the catalogue
-- (PostgreSQL 11+), so these ALTERs rewrite no table.
--
-- `remainder` keeps what an 18-decimal transfer carried below one micro-unit, in the token's own
-- smallest units (0 to 10^12 - 1 for 18 decimals; always 0 for a 6-decimal token). Order amounts and
-- balances stay in micro-units; the remainder is never credited and never dropped from the books.
ALTER TABLE orders ADD COLUMN IF NOT EXISTS chain text NOT NULL DEFAULT 'tron';
ALTER TABLE orders ADD COLUMN IF NOT EXISTS currency text NOT NULL DEFAULT 'USDT';

ALTER TABLE transfers ADD COLUMN IF NOT EXISTS chain text NOT NULL DEFAULT 'tron';
ALTER TABLE transfers ADD COLUMN IF NOT EXISTS remainder numeric(38, 0) NOT NULL DEFAULT 0;

ALTER TABLE stray_transfers ADD COLUMN IF NOT EXISTS chain text NOT NULL DEFAULT 'tron';

ALTER TABLE deposits ADD COLUMN IF NOT EXISTS chain text NOT NULL DEFAULT 'tron';
