-- When the sender first saw a payout's transaction in a block of the head chain (NULL while it is
-- not in one, and again if a fork drops it). The float check reads the hot wallet's balance from
-- the head, where such a transaction is already paid: it no longer counts it a second time as
-- still to pay until it is solidified (otherwise a tight float raises a false `payout_float_low`).
ALTER TABLE payout_transactions ADD COLUMN included_at timestamptz;
