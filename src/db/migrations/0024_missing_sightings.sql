-- A transaction is judged expired only when the node a round is pinned to has a solidified head past
-- its expiration and still lacks it, seen on two separate rounds (docs/payouts.md "Judged on one
-- node"). Each such round counts here; any sighting of the transaction resets the count.
ALTER TABLE payout_transactions ADD COLUMN missing_seen_count integer NOT NULL DEFAULT 0;
ALTER TABLE payout_transactions ADD COLUMN missing_seen_at timestamptz;
ALTER TABLE sweep_transactions ADD COLUMN missing_seen_count integer NOT NULL DEFAULT 0;
ALTER TABLE sweep_transactions ADD COLUMN missing_seen_at timestamptz;

-- operator_factor_failures.context (text) takes a third value, 'password': a wrong current password
-- on a change of second factors counts toward the same lockout (issue 37).
