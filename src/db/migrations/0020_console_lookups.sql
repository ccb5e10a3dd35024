-- Lookups of the operator console.
--
-- The console's search finds an order or a payout by its external id alone, whatever the merchant:
-- the unique keys of 0001 and 0011 lead with merchant_id, so they cannot serve that lookup.
CREATE INDEX orders_external_id_idx ON orders (external_id);
CREATE INDEX payouts_external_id_any_idx ON payouts (external_id) WHERE external_id IS NOT NULL;
-- The overview lists failing webhook deliveries first: those whose last attempt failed and that wait
-- for their next retry, and those that gave up. Few rows, so a small partial index.
CREATE INDEX webhook_deliveries_failing_idx ON webhook_deliveries (updated_at DESC)
  WHERE status = 'failed' OR (status = 'pending' AND attempts > 0);
