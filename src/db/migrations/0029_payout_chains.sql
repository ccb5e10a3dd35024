-- Refunds and payouts on any enabled chain (DESIGN.md 14 and 16).
--
-- A payout names the chain it is paid on and the currency it draws (a merchant's balance is per
-- currency, whatever chain the money arrived on). Rows written before chains existed were TRON
-- USDT payouts, which the defaults say; a constant default is stored in the catalogue, so these
-- ALTERs rewrite no table. `network` is the chain's network name when the payout was created
-- (NULL on older rows: TRON's configured network).
ALTER TABLE payouts ADD COLUMN IF NOT EXISTS chain text NOT NULL DEFAULT 'tron';
ALTER TABLE payouts ADD COLUMN IF NOT EXISTS currency text NOT NULL DEFAULT 'USDT';
ALTER TABLE payouts ADD COLUMN IF NOT EXISTS network text;
