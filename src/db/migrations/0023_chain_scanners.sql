-- A scanner per enabled chain (DESIGN.md 16, "Watching").
--
-- Each chain's scanner keeps its own record of scanned blocks, from which its fork points are
-- found, and its own cursor row: TRON keeps the row it always had ('usdt'), so an existing
-- deployment continues where it stopped; another chain's row is named by its family and id
-- (`evm:ethereum`). Rows written before chains existed are TRON's, which the default says.
ALTER TABLE scanned_blocks ADD COLUMN IF NOT EXISTS chain text NOT NULL DEFAULT 'tron';
ALTER TABLE scanned_blocks DROP CONSTRAINT scanned_blocks_pkey;
ALTER TABLE scanned_blocks ADD CONSTRAINT scanned_blocks_pkey PRIMARY KEY (chain, block_number);
