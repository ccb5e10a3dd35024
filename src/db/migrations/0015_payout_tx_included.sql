-- When the sender first saw a payout's transaction in a block of the head chain (NULL while it is
-- not in one, and again if a fork drops it). The float check reads the hot wallet's balance from
-- the head, where such a transaction is already paid: it no longer counts it a second time as
-- still to pay until it is solidified (issue 24's false `payout_float_low` with a tight float).
ALTER TABLE payout_transactions ADD COLUMN included_at timestamptz;
