-- Statement triggers that pair a statement's old and new rows (old_x JOIN new_x ON id) run inside
-- PL/pgSQL, which caches the join's plan for the session. Planned while the transition tables are
-- small (a creation batch claims 64 addresses), it is a nested loop, and the same session's next
-- statement over tens of thousands of rows (a mass release, expiry or repair) then compares every
-- old row with every new one: 40,000 addresses took 4 min 41 s instead of 0.6 s. Transition tables
-- have no index, so a hash join is the right plan at any size; it costs microseconds when small.
ALTER FUNCTION address_pool_on_update() SET enable_nestloop = off;
ALTER FUNCTION order_rollups_on_update() SET enable_nestloop = off;
ALTER FUNCTION deposit_rollups_on_update() SET enable_nestloop = off;
