-- Every claim leaves a dead entry at the front of addresses_free_claim_idx, and later claims step
-- over those entries until a vacuum removes them: at 5,000 orders/s the default trigger (20% of the
-- table) lets tens of thousands pile up and claims slow down in proportion. Vacuum addresses after
-- 2,000 dead rows instead, without the cost-based throttling (the table is narrow and hot).
ALTER TABLE addresses SET (
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 2000,
  autovacuum_vacuum_cost_delay = 0
);
