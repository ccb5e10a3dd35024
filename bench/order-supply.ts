/**
 * Order creation with the default address pool: POST /api/v1/payments on real
 * PostgreSQL with POOL_MIN_FREE=200 and the real pool filler loop running in the same process (as
 * in role "all"), 64 connections, orders/s printed per minute. In the same run, for comparison:
 * the same server on a deep pool (free addresses inserted beforehand, so neither the filler nor
 * inline derivation runs while it is measured), before and after the default-pool minutes, and the
 * bare minimal-INSERT endpoint of bench/order-create.ts.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/order-supply.ts
 *
 * Goals: no minute below 80 % of the median minute, the last minute within 10 % of the first; the
 * median at least 80 % of the deep-pool rate; creation at least 1.0x the minimal INSERT. Any non-2xx
 * answer is printed (there must be none).
 * Env: BENCH_MINUTES (10), BENCH_SEGMENT_SECONDS (60: one "minute"; lower it for short runs),
 * BENCH_BASELINE_SECONDS (60: each deep-pool and minimal-INSERT measurement), BENCH_CONNECTIONS (64),
 * BENCH_POOL_SIZE (pg pool of the server and of the bare endpoint, 10), POOL_MIN_FREE (200).
 * Creates and drops a scratch database. The machine's load average is printed: on a shared
 * machine the figures move with it. Each measurement also prints what an order cost: CPU of the
 * whole machine per order and the share of it left idle (from /proc/stat; Linux only), CPU of this
 * process (the API and, on the default pool, the filler and its derivation thread) and PostgreSQL's
 * WAL bytes per order (pg_stat_wal). The default pool's extra cost over the deep pool is what the
 * ratio between them measures.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import Fastify from "fastify";
import pg from "pg";
import { loadConfig } from "../src/config.js";
import { createContext, type Context } from "../src/context.js";
import { openDatabase } from "../src/db/connection.js";
import { migrate } from "../src/db/migrate.js";
import { buildApp } from "../src/http/app.js";
import { createLogger } from "../src/logger.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { stopAddressDeriver } from "../src/wallet/address-deriver.js";
import { readPoolState } from "../src/wallet/fill-address-pool.js";
import { startAddressPoolFiller } from "../src/workers/payment-loops.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const minutes = Number(process.env.BENCH_MINUTES ?? 10);
const segment = Number(process.env.BENCH_SEGMENT_SECONDS ?? 60);
const baselineSeconds = Number(process.env.BENCH_BASELINE_SECONDS ?? 60);
const poolSize = Number(process.env.BENCH_POOL_SIZE ?? 10);
const poolMinFree = process.env.POOL_MIN_FREE ?? "200";
/** Free addresses of the deep pool: enough for 8,000 orders/s throughout one measurement. */
const deepAddresses = (baselineSeconds + 5) * 8_000;

interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, { count: number }>;
}

async function load(url: string, headers: Record<string, string>, prefix: string, seconds: number) {
  const options = {
    url,
    headers,
    connections,
    duration: seconds,
    prefix,
    bodyTemplate: { amount: "12.345678", currency: "USDT", callback_url: "https://shop.example.com/cb" },
  };
  const { stdout } = await run(process.execPath, [join(here, "load.mjs"), JSON.stringify(options)], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split("\n").pop() as string) as LoadResult;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** One statement on a connection of its own (the bench's pool belongs to the server it measures). */
async function queryOnce<R extends pg.QueryResultRow>(url: string, statement: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(statement)).rows;
  } finally {
    await client.end();
  }
}

async function admin(statement: string): Promise<void> {
  await queryOnce(adminUrl, statement);
}

/**
 * Makes the pool deep, or empty: `deep` inserts `count` free placeholder addresses at the next
 * indexes (the indexes stay contiguous and reserved through address_pool_state like any writer's);
 * `!deep` takes every free address out of the pool. The placeholders are hashes, like real
 * addresses: each lands at a random place in the unique index on `address`, as a derived one does
 * (sequential placeholders made the deep pool cheaper than the real one).
 */
async function setPool(ctx: Context, deep: boolean, count = deepAddresses): Promise<void> {
  await ctx.database.session(async (s) => {
    if (!deep) {
      await s.query(
        "UPDATE addresses SET status = 'allocated', allocated_at = now() WHERE id IN (SELECT address_id FROM free_addresses)",
      );
      return;
    }
    await s.query("BEGIN");
    const { rows } = await s.query<{ start: number }>(
      "UPDATE address_pool_state SET next_index = next_index + $1 RETURNING next_index - $1 AS start",
      [count],
    );
    await s.query(
      `INSERT INTO addresses (derivation_index, address, status, created_at)
       SELECT $1::int + i, 'TDeep' || left(md5(($1::int + i)::text), 29), 'free', now()
       FROM generate_series(0, $2::int - 1) AS i`,
      [rows[0]?.start ?? 0, count],
    );
    await s.query("COMMIT");
    await s.query("VACUUM ANALYZE addresses");
  });
}

/** The bare endpoint of bench/order-create.ts: one INSERT into a five-column table, same pool size. */
async function startMinimal(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on("error", () => undefined);
  await pool.query(`CREATE TABLE bare_minimal (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    merchant_id uuid NOT NULL,
    external_id text NOT NULL,
    amount_expected numeric(38, 0) NOT NULL,
    currency text NOT NULL,
    callback_url text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (merchant_id, external_id))`);
  const app = Fastify({ logger: false });
  app.post("/bare", async (request, reply) => {
    const body = request.body as {
      external_id: string;
      amount: string;
      currency: string;
      callback_url: string;
    };
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO bare_minimal (merchant_id, external_id, amount_expected, currency, callback_url)
       VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [
        "00000000-0000-4000-8000-000000000001",
        body.external_id,
        body.amount.replace(".", ""),
        body.currency,
        body.callback_url,
      ],
    );
    return reply.status(201).send({ id: rows[0]?.id });
  });
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    url: `${address}/bare`,
    async close() {
      await app.close();
      await pool.end();
    },
  };
}

/**
 * Updates of `addresses` so far, and how many of them were HOT (no new index entry), from the
 * statistics the backends flush about once a second. Over the default-pool minutes these are the
 * claims' binds, which migration 0016 made HOT-eligible.
 */
async function addressUpdates(url: string): Promise<{ updated: number; hot: number }> {
  const [row] = await queryOnce<{ updated: string; hot: string }>(
    url,
    "SELECT n_tup_upd::text AS updated, n_tup_hot_upd::text AS hot FROM pg_stat_user_tables WHERE relname = 'addresses'",
  );
  return { updated: Number(row?.updated ?? 0), hot: Number(row?.hot ?? 0) };
}

/** What the machine, this process and PostgreSQL have spent so far (see costOf). */
interface CostSample {
  /** Jiffies of /proc/stat's "cpu" line: busy and idle (iowait counts as idle), all cores. */
  busy: number;
  idle: number;
  /** This process's CPU, µs. */
  own: number;
  walBytes: number;
  /** Full-page images in the WAL (pg_stat_wal.wal_fpi): the first change of a page after a checkpoint. */
  walFpi: number;
}

function machineJiffies(): { busy: number; idle: number } {
  try {
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "")
      .trim()
      .split(/\s+/)
      .slice(1, 9)
      .map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    return { busy: user + nice + system + irq + softirq + steal, idle: idle + iowait };
  } catch {
    return { busy: NaN, idle: NaN };
  }
}

async function costSample(url: string): Promise<CostSample> {
  const [row] = await queryOnce<{ wal_bytes: string; wal_fpi: string }>(
    url,
    "SELECT wal_bytes::text, wal_fpi::text FROM pg_stat_wal",
  );
  const { user, system } = process.cpuUsage();
  return {
    ...machineJiffies(),
    own: user + system,
    walBytes: Number(row?.wal_bytes ?? NaN),
    walFpi: Number(row?.wal_fpi ?? NaN),
  };
}

/** Per order (or request) between two samples: machine CPU µs, its idle share, this process's CPU µs, WAL bytes. */
interface Cost {
  machineUs: number;
  idlePercent: number;
  ownUs: number;
  walBytes: number;
  walFpi: number;
}

function costOf(before: CostSample, after: CostSample, requests: number): Cost {
  const jiffyUs = 1_000_000 / 100; // USER_HZ is 100 on Linux
  const busy = after.busy - before.busy;
  const idle = after.idle - before.idle;
  const per = (value: number) => (requests > 0 ? value / requests : NaN);
  return {
    machineUs: per(busy * jiffyUs),
    idlePercent: (100 * idle) / (busy + idle),
    ownUs: per(after.own - before.own),
    walBytes: per(after.walBytes - before.walBytes),
    walFpi: per(after.walFpi - before.walFpi),
  };
}

const costLine = (c: Cost): string =>
  `  cost/order: machine CPU ${c.machineUs.toFixed(0)} µs (idle ${c.idlePercent.toFixed(0)} %), ` +
  `this process ${c.ownUs.toFixed(0)} µs, WAL ${c.walBytes.toFixed(0)} B ` +
  `(${c.walFpi.toFixed(2)} full-page images)`;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
/**
 * The default pool's cost per order against the deep pool's (means of the baselines, medians of
 * the minutes). Where the machine's CPU is the limit, the rate ratio follows deep ÷ default CPU.
 */
function costComparison(deepCosts: Cost[], minuteCosts: Cost[]): string {
  const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
  const d = { cpu: mean(deepCosts.map((c) => c.machineUs)), wal: mean(deepCosts.map((c) => c.walBytes)) };
  const m = {
    cpu: median(minuteCosts.map((c) => c.machineUs)),
    wal: median(minuteCosts.map((c) => c.walBytes)),
  };
  return (
    `  cost/order, deep pool vs default pool: machine CPU ${d.cpu.toFixed(0)} vs ${m.cpu.toFixed(0)} µs ` +
    `(deep ÷ default ${(d.cpu / m.cpu).toFixed(2)}), WAL ${d.wal.toFixed(0)} vs ${m.wal.toFixed(0)} B`
  );
}

const load1 = () => loadavg()[0]?.toFixed(1) ?? "?";
const failures = (r: LoadResult) =>
  r.non2xx + r.errors > 0
    ? `  NON-2XX ${r.non2xx} (${Object.entries(r.statusCodes)
        .filter(([code]) => !code.startsWith("2"))
        .map(([code, { count }]) => `${code}: ${count}`)
        .join(", ")}), errors ${r.errors}`
    : "";

const name = `sg_bench_supply_${randomBytes(4).toString("hex")}`;
const dropScratch = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);

async function main(): Promise<void> {
  await admin(`CREATE DATABASE ${name}`);
  const url = withDatabase(adminUrl, name);
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: join(here, "..", "data", "bench"),
    DATABASE_URL: url,
    ADMIN_PASSWORD: "bench-admin-password",
    SESSION_SECRET: "bench-session-secret-0123456789abcdef01234567",
    API_KEY_PEPPER: "bench-api-key-pepper-0123456789abcdef01234567",
    WALLET_MNEMONIC:
      "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
    TRON_NETWORK: "nile",
    LOG_LEVEL: "silent",
    MERCHANT_RATE_LIMIT_PER_MINUTE: "1000000",
    POOL_MIN_FREE: poolMinFree,
  });
  const database = await openDatabase({ databaseUrl: url, poolSize });
  const closers: (() => Promise<void>)[] = [];
  try {
    const ctx = await createContext(config, { database, log: createLogger({ level: "silent" }) });
    await migrate(database);
    const { apiKey } = await createMerchant(ctx, {
      name: "Bench Shop",
      webhookSecret: "bench-webhook-secret",
    });
    const app = await buildApp(ctx);
    const address = await app.listen({ port: 0, host: "127.0.0.1" });
    closers.push(() => app.close());
    const api = `${address}/api/v1/payments`;
    const headers = { "x-api-key": apiKey };
    const minimal = await startMinimal(url);
    closers.push(() => minimal.close());
    console.log(
      `order-supply bench: ${connections} connections, POOL_MIN_FREE=${poolMinFree}, ${minutes} x ${segment} s ` +
        `on the default pool, deep pool and minimal INSERT ${baselineSeconds} s each before and after; ` +
        `pg pool ${poolSize}; load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(" ")} (shared machine)`,
    );

    const deep: LoadResult[] = [];
    const bare: LoadResult[] = [];
    const deepCosts: Cost[] = [];
    const minuteCosts: Cost[] = [];
    /** One load run, with what each of its requests cost (costLine). */
    const measured = async (
      target: string,
      requestHeaders: Record<string, string>,
      prefix: string,
      seconds: number,
    ) => {
      const before = await costSample(url);
      const result = await load(target, requestHeaders, prefix, seconds);
      return { result, cost: costOf(before, await costSample(url), result.requests) };
    };
    const baselines = async (label: string) => {
      await setPool(ctx, true);
      await load(api, headers, `warm-${label}`, 3);
      const { result: d, cost: deepCost } = await measured(api, headers, `deep-${label}`, baselineSeconds);
      deep.push(d);
      deepCosts.push(deepCost);
      console.log(
        `deep pool (${label})       ${d.rps.toFixed(0).padStart(6)} orders/s  p99 ${d.p99} ms  load ${load1()}${failures(d)}\n${costLine(deepCost)}`,
      );
      await setPool(ctx, false);
      const { result: b, cost: bareCost } = await measured(minimal.url, {}, `bare-${label}`, baselineSeconds);
      bare.push(b);
      console.log(
        `minimal INSERT (${label})  ${b.rps.toFixed(0).padStart(6)} req/s     p99 ${b.p99} ms  load ${load1()}${failures(b)}\n${costLine(bareCost)}`,
      );
    };
    await baselines("before");

    // The default pool: empty at the start, the filler's target POOL_MIN_FREE, the filler running.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const updatesBefore = await addressUpdates(url);
    const filler = startAddressPoolFiller(ctx);
    closers.push(() => filler.stop());
    const perMinute: LoadResult[] = [];
    let nonOk = 0;
    for (let m = 1; m <= minutes; m++) {
      const { result: r, cost } = await measured(api, headers, `supply-${m}`, segment);
      perMinute.push(r);
      minuteCosts.push(cost);
      nonOk += r.non2xx + r.errors;
      const state = await readPoolState(ctx.db);
      console.log(
        `minute ${String(m).padStart(2)}  ${r.rps.toFixed(0).padStart(6)} orders/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ` +
          `free at the end ${state.free}, derived so far ${state.nextIndex}  load ${load1()}${failures(r)}\n${costLine(cost)}`,
      );
    }
    await filler.stop();
    closers.pop();
    // The statistics are flushed about once a second after a backend's last transaction.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const updatesAfter = await addressUpdates(url);
    const claims = updatesAfter.updated - updatesBefore.updated;
    const hot = updatesAfter.hot - updatesBefore.hot;
    console.log(
      `updates of addresses in these minutes: ${claims}, HOT ${hot} (${claims === 0 ? "-" : ((100 * hot) / claims).toFixed(1)} %)`,
    );
    await baselines("after");

    const rates = perMinute.map((r) => r.rps);
    const med = median(rates);
    const low = Math.min(...rates);
    const first = rates[0] as number;
    const last = rates[rates.length - 1] as number;
    const deepRate = deep.reduce((sum, r) => sum + r.rps, 0) / deep.length;
    const bareRate = bare.reduce((sum, r) => sum + r.rps, 0) / bare.length;
    const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
    console.log(
      [
        `default pool: median ${med.toFixed(0)} orders/s, lowest minute ${low.toFixed(0)} (${((100 * low) / med).toFixed(0)} % of the median, goal >= 80 %: ${verdict(low >= 0.8 * med)})`,
        `  last minute ${last.toFixed(0)} vs first ${first.toFixed(0)}: ${((100 * (last - first)) / first).toFixed(1)} % (goal within 10 %: ${verdict(Math.abs(last - first) <= 0.1 * first)})`,
        `  median / deep pool ${deepRate.toFixed(0)} = ${(med / deepRate).toFixed(2)} (goal >= 0.80: ${verdict(med >= 0.8 * deepRate)})`,
        `  median / minimal INSERT ${bareRate.toFixed(0)} = ${(med / bareRate).toFixed(2)} (goal >= 1.0: ${verdict(med >= bareRate)})`,
        `  non-2xx or errors on /api/v1/payments: ${nonOk}${nonOk === 0 ? "" : " (goal 0: FAIL)"}; load average now ${load1()}`,
        costComparison(deepCosts, minuteCosts),
      ].join("\n"),
    );
  } finally {
    // Nothing may keep the scratch database alive: each close gets 10 s, then the database is
    // dropped (FORCE ends any connection still open) whatever happened before.
    const bounded = (close: () => Promise<void>) =>
      Promise.race([close().catch(() => undefined), new Promise<void>((r) => setTimeout(r, 10_000).unref())]);
    for (const close of closers.reverse()) await bounded(close);
    await bounded(() => database.close());
    await stopAddressDeriver();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

// An interrupted run (Ctrl-C, timeout) drops its scratch database too.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void dropScratch().finally(() => process.exit(130));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
