-- Chain alerts are keyed per chain since chains came (`scanner_lag:<chain>`, `node_down:<chain>`,
-- src/alerts/chain-conditions.ts), and so are the rows their evaluation keeps in app_state. A
-- condition still firing under its old key would never be resolved by anything now: it is resolved
-- here, silently (the per-chain evaluation fires it again under its new key if it still holds), and
-- the old app_state rows, no longer read, are dropped.
UPDATE alerts SET state = 'resolved', resolved_at = now()
WHERE kind = 'condition' AND state = 'firing' AND key IN ('scanner_lag', 'node_down');

DELETE FROM app_state WHERE key IN ('chain_status', 'alerts_node_answered_at');
