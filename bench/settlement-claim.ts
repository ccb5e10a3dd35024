/**
 * npx tsx bench/settlement-claim.ts [history=1000000] [due=2000]
 * CLAIM_INDEX=1 also creates a partial index on settlements (chain, address) of the queued rows, to
 * see whether the planner would use one for the rule (it does not).
 *
 * The sweeper's claim (src/sweeps/settlement-store.ts, claimDueSettlements) on a realistic
 * settlements table: `history` completed settlements (half TRON, half Ethereum) and `due` waiting
 * Ethereum ones, every tenth address with a second (stray) settlement queued behind its first. A
 * throwaway PostgreSQL cluster, migrated; the real function runs, and auto_explain prints its plan
 * (with ANALYZE) from the server's log, with the claim's time: the median of 20 claims (each rolled
 * back, so every claim sees the same queue), beside a same-run baseline: one look-up of an
 * address's settlements by (chain, address), which no index serves (a scan of the table). The
 * one-at-a-time rule (NOT EXISTS an older waiting or active settlement of the same address and
 * chain) is what this looks at.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { Context } from "../src/context.js";
import { openDatabase } from "../src/db/connection.js";
import { loadMigrations, migrate } from "../src/db/migrate.js";
import { queryRows } from "../src/db/query-rows.js";
import { claimDueSettlements } from "../src/sweeps/settlement-store.js";
import { createPgCluster } from "../test/helpers/pg-cluster.js";

const [history = 1_000_000, due = 2_000] = process.argv.slice(2).map(Number);
const cluster = await createPgCluster({ databases: ["stablegate"] });
const database = await openDatabase({ databaseUrl: cluster.url("stablegate"), poolSize: 1 });
try {
  await migrate(database, loadMigrations());
  const { db } = database;
  // Settlements only: their orders and addresses are not what the claim reads.
  await db.execute(sql`SET session_replication_role = replica`);
  await db.execute(sql`INSERT INTO settlements (id, order_id, address, status, step, chain, created_at, updated_at)
    SELECT gen_random_uuid(), gen_random_uuid(), '0x' || lpad(to_hex(n), 40, '0'), 'completed', 'swept',
      CASE WHEN n % 2 = 0 THEN 'tron' ELSE 'ethereum' END, now() - interval '30 days', now() - interval '30 days'
    FROM generate_series(1, ${history}) AS n`);
  await db.execute(sql`INSERT INTO settlements (id, order_id, address, status, chain, next_attempt_at, created_at, updated_at)
    SELECT gen_random_uuid(), gen_random_uuid(), '0xd' || lpad(to_hex(n), 39, '0'), 'waiting', 'ethereum',
      now() - interval '1 minute', now(), now()
    FROM generate_series(1, ${due}) AS n`);
  await db.execute(sql`INSERT INTO settlements (id, order_id, address_id, address, status, chain, next_attempt_at, created_at, updated_at)
    SELECT gen_random_uuid(), NULL, n, '0xd' || lpad(to_hex(n), 39, '0'), 'waiting', 'ethereum',
      now() - interval '1 minute', now(), now()
    FROM generate_series(1, ${due}, 10) AS n`);
  await db.execute(sql`SET session_replication_role = DEFAULT`);
  if (process.env.CLAIM_INDEX)
    await db.execute(
      sql`CREATE INDEX settlements_queued_address_idx ON settlements (chain, address) WHERE status IN ('waiting', 'active')`,
    );
  await db.execute(sql`ANALYZE settlements`);
  const indexes = await queryRows<{ indexname: string }>(
    db,
    sql`SELECT indexname FROM pg_indexes WHERE tablename = 'settlements' ORDER BY indexname`,
  );

  const ctx = {
    db,
    clock: { now: () => new Date() },
    config: { workerLeaseMs: 120_000 },
  } as unknown as Context;
  const claim = async () => {
    const started = performance.now();
    let claimed = 0;
    await db
      .transaction(async (tx) => {
        claimed = (await claimDueSettlements({ ...ctx, db: tx } as Context, "bench", 10, "ethereum")).length;
        tx.rollback();
      })
      .catch(() => undefined);
    return { ms: performance.now() - started, claimed };
  };
  for (let i = 0; i < 3; i++) await claim();
  const times: number[] = [];
  let claimed = 0;
  for (let i = 0; i < 20; i++) {
    const run = await claim();
    times.push(run.ms);
    claimed = run.claimed;
  }
  times.sort((a, b) => a - b);
  // Baseline, same run: what one look-up of an address's settlements costs without an index on
  // (chain, address): a scan of the whole table.
  const scans: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await db.execute(
      sql`SELECT count(*) FROM settlements WHERE chain = 'ethereum' AND address = ${"0xd" + "7".padStart(39, "0")}`,
    );
    scans.push(performance.now() - started);
  }
  scans.sort((a, b) => a - b);
  await db.execute(sql`LOAD 'auto_explain'`);
  await db.execute(sql`SET auto_explain.log_min_duration = 0`);
  await db.execute(sql`SET auto_explain.log_analyze = on`);
  await db.execute(sql`SET auto_explain.log_nested_statements = on`);
  await claim();
  await db.execute(sql`SET auto_explain.log_min_duration = -1`);
  const log = readFileSync(join(cluster.dir, "server.log"), "utf8");
  const plans = log
    .split(/\n(?=\S.*LOG: {2}duration)/)
    .filter(
      (p) => p.includes("Query Text: \n    UPDATE settlements s") || p.includes("UPDATE settlements s"),
    );
  const plan = plans.at(-1) ?? "(no plan logged)";
  console.log(
    JSON.stringify({
      history,
      due,
      claimed,
      claim_ms_median: Number((times[10] ?? 0).toFixed(2)),
      claim_ms_max: Number((times.at(-1) ?? 0).toFixed(2)),
      baseline_table_scan_ms_median: Number((scans[2] ?? 0).toFixed(2)),
      indexes: indexes.map((r) => r.indexname),
    }),
  );
  console.log(plan.slice(plan.indexOf("Query Text")).replace(/^Query Text:[\s\S]*?\n(?=\s*Update on)/, ""));
} finally {
  await database.close();
  await cluster.destroy();
}
