-- Why an approved payout is waiting, as a code the sender writes and the dashboard and the alert
-- read (last_error keeps the words for people). 'float_low': the hot wallet's USDT float did not
-- cover it at its last look. NULL: not waiting for anything but its turn.
ALTER TABLE payouts ADD COLUMN wait_reason text CHECK (wait_reason IN ('float_low'));
UPDATE payouts SET wait_reason = 'float_low'
  WHERE status = 'approved' AND last_error LIKE 'the hot wallet''s USDT float is too small%';
