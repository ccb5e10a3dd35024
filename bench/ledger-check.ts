/**
 * check-ledger at scale: a scratch PostgreSQL database migrated to 0010, N paid orders over 50
 * merchants (generated SQL), then migration 0011, whose backfill writes one ledger transaction (two
 * postings) per order; then `checkLedger` is timed (twice: cold and warm cache), and once more after
 * one balance was tampered with, to show it finds the difference.
 *
 * Same-run baseline: the check of BENCH_BASELINE (a git ref, default main; a clone in a scratch
 * directory) runs on the same database, alternating with this checkout's, so the per-currency
 * grouping (migration 0030) is priced against the check it replaced on the same rows. Old checks
 * ignore the currency column; with every row USDT, both must find no difference.
 *
 *   npm run bench:ledger-check -- [--transactions 1000000] [--rounds 2] [--keep]
 *
 * Needs TEST_DATABASE_URL (or DATABASE_URL): a PostgreSQL server where it may create a database.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { openDatabase } from "../src/db/connection.js";
import { loadMigrations, migrate } from "../src/db/migrate.js";
import { checkLedger } from "../src/ledger/check-ledger.js";
import { sql } from "drizzle-orm";

const { values } = parseArgs({
  options: {
    transactions: { type: "string", default: "1000000" },
    rounds: { type: "string", default: "2" },
    keep: { type: "boolean", default: false },
  },
});
const N = Number(values.transactions);
const ROUNDS = Number(values.rounds);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const git = (args: string[], cwd = ROOT) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

/** BENCH_BASELINE's code in a scratch clone, sharing this checkout's node_modules. */
function cloneBaseline(ref: string): { root: string; commit: string } {
  const commit = git(["rev-parse", "--short", ref]);
  const root = mkdtempSync(join(tmpdir(), "sg-ledger-baseline-"));
  git([
    "clone",
    "--quiet",
    "--no-checkout",
    git(["rev-parse", "--path-format=absolute", "--git-common-dir"]),
    root,
  ]);
  git(["checkout", "--quiet", "--detach", commit], root);
  const modules = join(root, "node_modules");
  mkdirSync(modules, { recursive: true });
  for (const entry of readdirSync(join(ROOT, "node_modules"))) {
    if (entry !== "@stablegate") symlinkSync(join(ROOT, "node_modules", entry), join(modules, entry));
  }
  return { root, commit };
}

const baselineRef = process.env.BENCH_BASELINE ?? "main";
const baseline = cloneBaseline(baselineRef);
const baselineCheck = (
  (await import(pathToFileURL(join(baseline.root, "src/ledger/check-ledger.ts")).href)) as {
    checkLedger: typeof checkLedger;
  }
).checkLedger;
const current = git(["rev-parse", "--short", "HEAD"]);
const adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (!adminUrl) {
  process.stderr.write("set TEST_DATABASE_URL to a PostgreSQL server\n");
  process.exit(1);
}
const name = `sg_bench_ledger_${Date.now()}`;
const url = new URL(adminUrl);
url.pathname = `/${name}`;

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
let client: pg.Client | undefined;
try {
  const all = loadMigrations();
  await migrate(
    database,
    all.filter((m) => m.name < "0011"),
  );
  client = new pg.Client({ connectionString: url.toString() });
  client.on("error", () => undefined);
  await client.connect();
  let started = performance.now();
  await client.query(`
    INSERT INTO merchants (id, name, api_key_hash, api_key_prefix, webhook_secret, created_at, updated_at)
    SELECT gen_random_uuid(), 'Bench ' || i, 'hash-' || i, 'sg_test_' || i, 'whsec-bench-secret', now(), now()
    FROM generate_series(1, 50) AS i`);
  await client.query(`
    INSERT INTO orders (id, merchant_id, external_id, amount_expected, amount_received, network, status, address,
      callback_url, expires_at, confirmed_at, created_at, updated_at)
    SELECT gen_random_uuid(), m.ids[(1 + i % 50)::int], 'ext-' || i, 1000000 + (i * 7919) % 500000000,
      1000000 + (i * 7919) % 500000000, 'nile', 'completed', 'TBench' || lpad(i::text, 28, '0'),
      'https://shop.example.com/cb', now(), now() - make_interval(secs => i), now(), now()
    FROM generate_series(1::bigint, ${N}::bigint) AS i, (SELECT array_agg(id) AS ids FROM merchants) AS m`);
  const fillMs = performance.now() - started;
  started = performance.now();
  await migrate(database);
  const backfillMs = performance.now() - started;
  await client.query("ANALYZE");
  const { rows } = await client.query<{ t: string; p: string }>(
    "SELECT (SELECT count(*) FROM ledger_transactions)::text AS t, (SELECT count(*) FROM ledger_postings)::text AS p",
  );
  const timings: number[] = [];
  const baselineTimings: number[] = [];
  for (let run = 0; run < ROUNDS; run += 1) {
    // Alternate which goes first, so neither always gets the warmer cache.
    const order = run % 2 === 0 ? (["current", "baseline"] as const) : (["baseline", "current"] as const);
    for (const which of order) {
      started = performance.now();
      const differences = await (which === "current" ? checkLedger : baselineCheck)(database.db);
      (which === "current" ? timings : baselineTimings).push(performance.now() - started);
      if (differences.length !== 0)
        throw new Error(`unexpected differences (${which}): ${JSON.stringify(differences[0])}`);
    }
  }
  await database.db.execute(
    sql`UPDATE merchant_balances SET available = available + 1 WHERE merchant_id = (SELECT min(merchant_id::text)::uuid FROM merchant_balances)`,
  );
  started = performance.now();
  const found = await checkLedger(database.db);
  const tamperedMs = performance.now() - started;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  process.stdout.write(
    [
      `ledger check over ${rows[0]?.t} ledger transactions (${rows[0]?.p} postings, 50 merchants), PostgreSQL`,
      `  fill ${N} orders:                 ${s(fillMs)}`,
      `  migration 0011 backfill:           ${s(backfillMs)}`,
      `  check-ledger (${current}), runs:        ${timings.map(s).join(" / ")}`,
      `  baseline ${baselineRef} (${baseline.commit}), runs: ${baselineTimings.map(s).join(" / ")}  (same database, alternating)`,
      `  check-ledger with 1 tampered balance: ${s(tamperedMs)}, differences found: ${found.length}`,
      "",
    ].join("\n"),
  );
} finally {
  await client?.end().catch(() => undefined);
  await database.close();
  if (!values.keep) await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  else process.stdout.write(`kept database ${name}\n`);
  await admin.end();
  rmSync(baseline.root, { recursive: true, force: true });
}
