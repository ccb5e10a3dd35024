/**
 * Admin reads and order creation at scale. Fills a PostgreSQL database of its
 * own with set-based SQL (generate_series; see admin-scale-fill.ts): --orders (10 M) over --days
 * (365) and --recent (1 M) more within the last --recent-minutes (30), 50 merchants; applies the
 * migrations from 0004 on (the rollup backfills and the list indexes) and times them, then times
 * every admin read and the merchant API list through the real HTTP app (200 sequential requests
 * each, p50/p99), including last-hour and last-day windows over the busy recent minutes, and order
 * creation throughput against the filled database and an empty one in alternating rounds
 * (--reads-only skips it).
 *
 *   npm run bench:admin-scale -- [--orders 10000000] [--recent 1000000] [--days 365]
 *     [--recent-minutes 30] [--keep] [--database NAME] [--creation-only] [--reads-only]
 *     [--windows-end latest|ISO]   (windows end there instead of now: a kept database's busy minutes)
 *
 * A smaller scale for a shared machine: --orders 1000000 --recent 100000 (same shape, a tenth).
 *
 * BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres) is the server to use. The bench
 * creates sg_bench_admin_<random> and drops it at the end; --keep keeps it, --database NAME reuses a
 * database kept earlier (no new fill). Goals: every read p99 <= 50 ms; creation >= 0.9 x empty.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { sql } from "drizzle-orm";
import Fastify from "fastify";
import pg from "pg";
import { loadConfig } from "../src/config.js";
import { createContext, type Context } from "../src/context.js";
import { openDatabase, type Database } from "../src/db/connection.js";
import { loadMigrations, migrate } from "../src/db/migrate.js";
import { queryRows } from "../src/db/query-rows.js";
import { buildApp } from "../src/http/app.js";
import { createLogger } from "../src/logger.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { FILL_DAYS, fillOrders } from "./admin-scale-fill.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const { values: args } = parseArgs({
  options: {
    orders: { type: "string", default: "10000000" },
    recent: { type: "string", default: "1000000" },
    days: { type: "string", default: String(FILL_DAYS) },
    "recent-minutes": { type: "string", default: "30" },
    "reads-only": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    database: { type: "string" },
    requests: { type: "string", default: "200" },
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "10" },
    "creation-only": { type: "boolean", default: false },
    "windows-end": { type: "string" },
  },
});
const ORDERS = Number(args.orders);
const RECENT = Number(args.recent);
const DAYS = Number(args.days);
const RECENT_MINUTES = Number(args["recent-minutes"]);
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);
const DURATION = Number(args.duration);
const MERCHANTS = 50;
const CONNECTIONS = 50;
const POOL_SIZE = 10;
const ADMIN_PASSWORD = "bench-admin-password";
/** Free addresses for 7,000 orders/s through the warm-up and every round, inserted by SQL. */
const ADDRESSES = (3 + ROUNDS * DURATION) * 7000;

const say = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function withDatabase(name: string): string {
  const parsed = new URL(adminUrl);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

interface Service {
  ctx: Context;
  database: Database;
  baseUrl: string;
  close(): Promise<void>;
}

async function startService(url: string, migrations = loadMigrations()): Promise<Service> {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: join(here, "..", "data", "bench"),
    DATABASE_URL: url,
    ADMIN_PASSWORD,
    SESSION_SECRET: "bench-session-secret-0123456789abcdef01234567",
    API_KEY_PEPPER: "bench-api-key-pepper-0123456789abcdef01234567",
    WALLET_MNEMONIC:
      "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
    TRON_NETWORK: "nile",
    LOG_LEVEL: "silent",
    MERCHANT_RATE_LIMIT_PER_MINUTE: "1000000",
  });
  const database = await openDatabase({ databaseUrl: url, poolSize: POOL_SIZE });
  await migrate(database, migrations);
  const ctx = await createContext(config, { database, log: createLogger({ level: "silent" }) });
  const app = await buildApp(ctx);
  const baseUrl = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    ctx,
    database,
    baseUrl,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/**
 * Tops the free addresses up to `count`, without HD derivation: creation only claims them, nothing
 * checks the keys. Only the shortfall is added, so a kept database rerun many times keeps a pool
 * the size a deployment would have (the admin stats count the pool).
 */
async function addFreeAddresses(client: pg.Client, count: number): Promise<void> {
  await client.query(
    `INSERT INTO addresses (derivation_index, address, status, created_at)
     SELECT coalesce((SELECT max(derivation_index) FROM addresses), -1) + i,
            'TFree' || md5(random()::text), 'free', now()
     FROM generate_series(1, $1::int - (SELECT count(*) FROM addresses WHERE status = 'free')::int) AS i`,
    [count],
  );
  // Indexes are reserved from address_pool_state (migration 0013): past the ones inserted here.
  await client.query(
    "UPDATE address_pool_state SET next_index = (SELECT coalesce(max(derivation_index), -1) + 1 FROM addresses)",
  );
  await client.query("VACUUM ANALYZE addresses");
}

async function apiKeyFor(service: Service, name: string): Promise<{ id: string; apiKey: string }> {
  const { merchant, apiKey } = await createMerchant(service.ctx, {
    name,
    webhookSecret: "bench-webhook-secret",
  });
  return { id: merchant.id, apiKey };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

interface Timing {
  name: string;
  p50: number;
  p99: number;
  detail: string;
}

/** REQUESTS sequential requests (after 5 unmeasured), each path of `paths` in turn. */
async function time(
  name: string,
  baseUrl: string,
  headers: Record<string, string>,
  paths: string[],
): Promise<Timing> {
  const durations: number[] = [];
  let detail = "";
  for (let i = -5; i < REQUESTS; i++) {
    const path = paths[((i % paths.length) + paths.length) % paths.length] as string;
    const started = performance.now();
    const response = await fetch(`${baseUrl}${path}`, { headers });
    const body = await response.text();
    const took = performance.now() - started;
    if (response.status !== 200) throw new Error(`${name}: ${response.status} ${body.slice(0, 200)}`);
    if (i >= 0) durations.push(took);
    if (i === 0) {
      const parsed = JSON.parse(body) as { pagination?: { total: number }; data?: unknown[] };
      detail = parsed.pagination ? `total ${parsed.pagination.total.toLocaleString("en")}` : "";
    }
  }
  durations.sort((a, b) => a - b);
  return { name, p50: percentile(durations, 50), p99: percentile(durations, 99), detail };
}

/** PostgreSQL's shared-buffer hits and reads (misses) of one database so far. */
async function bufferCounters(database: string): Promise<{ read: number; hit: number }> {
  return withClient(adminUrl, async (c) => {
    const result = await c.query<{ read: string; hit: string }>(
      "SELECT blks_read::text AS read, blks_hit::text AS hit FROM pg_stat_database WHERE datname = $1",
      [database],
    );
    const row = result.rows[0];
    return { read: Number(row?.read ?? 0), hit: Number(row?.hit ?? 0) };
  });
}

interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function loadCreate(baseUrl: string, apiKey: string, prefix: string, duration: number) {
  const options = {
    url: `${baseUrl}/api/v1/payments`,
    headers: { "x-api-key": apiKey },
    connections: CONNECTIONS,
    duration,
    prefix,
    bodyTemplate: { amount: "12.345678", currency: "USDT", callback_url: "https://shop.example.com/cb" },
  };
  const { stdout } = await run(process.execPath, [join(here, "load.mjs"), JSON.stringify(options)], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split("\n").pop() as string) as LoadResult;
}

async function fill(name: string): Promise<void> {
  // Plain rows: the schema is the one before 0004, older than createMerchant's audit trail.
  const url = withDatabase(name);
  const merchants = await withClient(url, async (c) => {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO merchants (id, name, api_key_hash, api_key_prefix, webhook_secret, created_at, updated_at)
       SELECT gen_random_uuid(), 'Shop ' || i, 'bench-hash-' || i || '-' || md5(random()::text), 'sg_test_b' || i,
         'bench-webhook-secret', now() - interval '400 days' + i * interval '1 second', now()
       FROM generate_series(1, $1::int) AS i
       RETURNING id::text AS id`,
      [MERCHANTS],
    );
    return rows.map((row) => row.id);
  });
  const now = new Date();
  say(
    `filling ${ORDERS.toLocaleString("en")} orders over ${DAYS} days and ${RECENT.toLocaleString("en")} in the last ` +
      `${RECENT_MINUTES} minutes (${MERCHANTS} merchants, set-based SQL); load ${load()}`,
  );
  const timings = await withClient(url, (client) =>
    fillOrders(
      client,
      merchants,
      { total: ORDERS, days: DAYS, recent: RECENT, recentMinutes: RECENT_MINUTES },
      now,
      say,
    ),
  );
  say(
    `fill: orders ${seconds(timings.ordersMs)}, list indexes ${seconds(timings.indexesMs)}, ` +
      `incidents and transfers ${seconds(timings.extrasMs)}`,
  );
}

async function main(): Promise<void> {
  const reuse = args.database;
  const name = reuse ?? `sg_bench_admin_${randomBytes(4).toString("hex")}`;
  const emptyName = `sg_bench_admin_empty_${randomBytes(4).toString("hex")}`;
  const url = withDatabase(name);
  const services: Service[] = [];
  say(
    `admin-scale bench: ${ORDERS.toLocaleString("en")} orders over ${DAYS} days + ${RECENT.toLocaleString("en")} in the last ${RECENT_MINUTES} min, database ${name}; load average ${load()} (shared machine)`,
  );
  try {
    if (!reuse) {
      await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
      const before = loadMigrations().filter((m) => m.name < "0004");
      const early = await startService(url, before);
      try {
        await fill(name);
      } finally {
        await early.close();
      }
      const database = await openDatabase({ databaseUrl: url, poolSize: 1 });
      let started = performance.now();
      const applied = await migrate(database);
      say(
        `migration ${applied.join(", ")} (rollup backfill + list indexes): ${seconds(performance.now() - started)}`,
      );
      await database.close();
      started = performance.now();
      await withClient(url, async (c) => {
        await c.query("VACUUM ANALYZE");
        await c.query("CHECKPOINT");
      });
      say(`VACUUM ANALYZE + CHECKPOINT: ${seconds(performance.now() - started)}`);
    }
    const full = await startService(url);
    services.push(full);
    const [{ size, orders }] = await withClient(url, async (c) => {
      const result = await c.query<{ size: string; orders: string }>(
        `SELECT pg_size_pretty(pg_database_size(current_database())) AS size,
           (SELECT sum(order_count) FROM order_rollups_total)::text AS orders`,
      );
      return result.rows as [{ size: string; orders: string }];
    });
    say(`database ${name}: ${size}, ${Number(orders).toLocaleString("en")} orders (from the rollups)`);

    // Reads.
    const login = await fetch(`${full.baseUrl}/api/v1/admin/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: ADMIN_PASSWORD }),
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    if (login.status !== 200 || !cookie.startsWith("admin_token=")) throw new Error("admin login failed");
    const admin = { cookie };
    const merchantIds = (
      await withClient(url, (c) =>
        c.query<{ id: string }>("SELECT id FROM merchants ORDER BY created_at, id"),
      )
    ).rows.map((row) => row.id);
    const shop = merchantIds[7] as string;
    // --windows-end latest: the windows end at the newest order instead of now, so a database kept
    // from an earlier fill still has its busy recent minutes inside "last hour" (the reads cost the
    // same whatever the wall clock says: rollups and indexes are keyed by the orders' own times).
    const windowsEnd = args["windows-end"];
    const now =
      windowsEnd === undefined
        ? Date.now()
        : windowsEnd === "latest"
          ? ((
              await withClient(url, (c) => c.query<{ at: Date }>("SELECT max(created_at) AS at FROM orders"))
            ).rows[0]?.at.getTime() ?? Date.now())
          : Date.parse(windowsEnd);
    if (!Number.isFinite(now)) throw new Error(`--windows-end: not a time: ${windowsEnd}`);
    const from = new Date(now - 7 * 86_400_000).toISOString();
    const to = new Date(now - 86_400_000).toISOString();
    // Windows ending now (the fill's "now" is a little earlier, so they cover every recent order).
    const nowIso = new Date(now + 60_000).toISOString();
    const lastHour = new Date(now - 3_600_000).toISOString();
    const lastDay = new Date(now - 86_400_000).toISOString();
    const timings: Timing[] = [];
    const creationOnly = args["creation-only"];
    const measure = async (name: string, headers: Record<string, string>, paths: string[]) => {
      if (creationOnly) return;
      const timing = await time(name, full.baseUrl, headers, paths);
      timings.push(timing);
      say(
        `  ${name.padEnd(58)} p50 ${timing.p50.toFixed(1).padStart(6)} ms  p99 ${timing.p99.toFixed(1).padStart(6)} ms  ${timing.detail}`,
      );
    };
    say(
      `reads: ${REQUESTS} sequential requests each; from=${from} to=${to}; windows end ${new Date(now).toISOString()}; load ${load()}`,
    );
    // The machine's floor at this moment: a bare Fastify route doing SELECT 1 over the same pool.
    const bare = Fastify({ logger: false });
    bare.get("/floor", async () => queryRows(full.database.db, sql`SELECT 1 AS one`));
    const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });
    const floor = await time("floor: bare Fastify route, SELECT 1", bareUrl, {}, ["/floor"]);
    await bare.close();
    if (creationOnly) say("  reads skipped (--creation-only)");
    say(
      `  ${floor.name.padEnd(58)} p50 ${floor.p50.toFixed(1).padStart(6)} ms  p99 ${floor.p99.toFixed(1).padStart(6)} ms`,
    );
    await measure("GET /admin/stats", admin, ["/api/v1/admin/stats"]);
    await measure("GET /admin/stats/daily", admin, ["/api/v1/admin/stats/daily"]);
    await measure("GET /admin/incidents", admin, ["/api/v1/admin/incidents"]);
    await measure("GET /admin/merchants", admin, ["/api/v1/admin/merchants"]);
    await measure(
      "GET /admin/merchants/:id (each merchant in turn)",
      admin,
      merchantIds.slice(0, MERCHANTS).map((id) => `/api/v1/admin/merchants/${id}`),
    );
    for (let mask = 0; mask < 16; mask++) {
      const query = new URLSearchParams();
      if (mask & 1) query.set("status", "completed");
      if (mask & 2) query.set("merchant_id", shop);
      if (mask & 4) query.set("from", from);
      if (mask & 8) query.set("to", to);
      const q = query.toString();
      const label = [...query.keys()].join("+") || "no filter";
      await measure(`GET /admin/orders ${label}`, admin, [`/api/v1/admin/orders${q ? `?${q}` : ""}`]);
    }
    await measure("GET /admin/orders status=callback_failed", admin, [
      "/api/v1/admin/orders?status=callback_failed",
    ]);
    // The busy recent minutes: last-hour and last-day windows, alone and with each filter.
    for (const [window, since] of [
      ["last hour", lastHour],
      ["last day", lastDay],
    ] as const) {
      for (const [label, extra] of [
        ["", ""],
        [" status", "&status=pending"],
        [" merchant_id", `&merchant_id=${shop}`],
        [" status+merchant_id", `&status=pending&merchant_id=${shop}`],
      ] as const) {
        await measure(`GET /admin/orders ${window}${label}`, admin, [
          `/api/v1/admin/orders?from=${since}&to=${nowIso}${extra}`,
        ]);
      }
    }
    // The merchant API as one of the filled merchants: a new merchant's key is moved over to it.
    const { apiKey: shopKey, id: keyHolder } = await apiKeyFor(full, "Key holder");
    await withClient(url, async (c) => {
      const { rows } = await c.query<{ hash: string }>(
        "SELECT api_key_hash AS hash FROM merchants WHERE id = $1",
        [keyHolder],
      );
      await c.query("UPDATE merchants SET api_key_hash = 'moved-' || id WHERE id = $1", [keyHolder]);
      await c.query("UPDATE merchants SET api_key_hash = $1 WHERE id = $2", [rows[0]?.hash, shop]);
    });
    const merchant = { "x-api-key": shopKey };
    for (const [label, q] of [
      ["no filter", ""],
      ["status", "?status=completed"],
      ["from+to", `?from=${from}&to=${to}`],
      ["status+from+to", `?status=completed&from=${from}&to=${to}`],
      ["last hour", `?from=${lastHour}&to=${nowIso}`],
      ["last day", `?from=${lastDay}&to=${nowIso}`],
      ["status+last hour", `?status=pending&from=${lastHour}&to=${nowIso}`],
    ] as const) {
      await measure(`GET /payments (merchant API) ${label}`, merchant, [`/api/v1/payments${q}`]);
    }
    const worst = Math.max(...timings.map((t) => t.p99));
    if (!creationOnly)
      say(
        `slowest read p99 ${worst.toFixed(1)} ms (goal <= 50 ms): ${worst <= 50 ? "PASS" : "FAIL"}; load ${load()}`,
      );

    if (args["reads-only"]) {
      say("creation skipped (--reads-only)");
      say("");
      say("| request | p50 ms | p99 ms | |");
      say("|---|---|---|---|");
      say(`| ${floor.name} | ${floor.p50.toFixed(1)} | ${floor.p99.toFixed(1)} | machine floor |`);
      for (const t of timings) say(`| ${t.name} | ${t.p50.toFixed(1)} | ${t.p99.toFixed(1)} | ${t.detail} |`);
      return;
    }
    // Creation: the filled database against an empty one, alternating rounds.
    await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${emptyName}`));
    const empty = await startService(withDatabase(emptyName));
    services.push(empty);
    const emptyKey = (await apiKeyFor(empty, "Bench Shop")).apiKey;
    await withClient(url, (c) => addFreeAddresses(c, ADDRESSES));
    await withClient(withDatabase(emptyName), (c) => addFreeAddresses(c, ADDRESSES));
    const targets = [
      {
        label: "empty database",
        database: emptyName,
        service: empty,
        key: emptyKey,
        runs: [] as LoadResult[],
      },
      {
        label: `${ORDERS.toLocaleString("en")} orders`,
        database: name,
        service: full,
        key: shopKey,
        runs: [] as LoadResult[],
      },
    ];
    say(`creation: ${CONNECTIONS} connections, ${DURATION} s x ${ROUNDS} alternating rounds; load ${load()}`);
    for (const target of targets)
      await loadCreate(target.service.baseUrl, target.key, `warm-${randomBytes(3).toString("hex")}`, 3);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const target of targets) {
        const before = await bufferCounters(target.database);
        const result = await loadCreate(
          target.service.baseUrl,
          target.key,
          `r${round}-${randomBytes(3).toString("hex")}`,
          DURATION,
        );
        target.runs.push(result);
        // Backends report their counters within a second of going idle.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const after = await bufferCounters(target.database);
        // Buffer accesses per created order: independent of the machine's load, unlike req/s.
        const perOrder = (n: number) => (n / Math.max(1, result.requests)).toFixed(1);
        say(
          `  round ${round} ${target.label.padEnd(20)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  non-2xx ${result.non2xx}  errors ${result.errors}  ` +
            `buffers/order hit ${perOrder(after.hit - before.hit)} read ${perOrder(after.read - before.read)}; load ${load()}`,
        );
      }
    }
    const median = (runs: LoadResult[]) =>
      [...runs.map((r) => r.rps)].sort((a, b) => a - b)[Math.floor(runs.length / 2)] as number;
    const [emptyRps, fullRps] = targets.map((t) => median(t.runs)) as [number, number];
    const ratio = fullRps / emptyRps;
    say(
      `creation median: empty ${emptyRps.toFixed(0)} req/s, at ${ORDERS.toLocaleString("en")} orders ${fullRps.toFixed(0)} req/s, ` +
        `ratio ${ratio.toFixed(2)} (goal >= 0.90): ${ratio >= 0.9 ? "PASS" : "FAIL"}; load ${load()}`,
    );
    say("");
    say("| request | p50 ms | p99 ms | |");
    say("|---|---|---|---|");
    say(`| ${floor.name} | ${floor.p50.toFixed(1)} | ${floor.p99.toFixed(1)} | machine floor |`);
    for (const t of timings) say(`| ${t.name} | ${t.p50.toFixed(1)} | ${t.p99.toFixed(1)} | ${t.detail} |`);
    say(`| POST /payments, empty database (median req/s) | ${emptyRps.toFixed(0)} | | |`);
    say(
      `| POST /payments, ${ORDERS.toLocaleString("en")} orders (median req/s) | ${fullRps.toFixed(0)} | | ratio ${ratio.toFixed(2)} |`,
    );
  } finally {
    for (const service of services) await service.close();
    await withClient(adminUrl, async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${emptyName} WITH (FORCE)`);
      if (!args.keep && !reuse) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
    if (args.keep || reuse) say(`kept database ${name}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
