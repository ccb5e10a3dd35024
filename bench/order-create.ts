/**
 * Order creation throughput against real PostgreSQL, next to a bare Fastify endpoint that does one
 * INSERT over a pg.Pool of the same size. Goal: >= 0.5x the bare endpoint's req/s, p99 <= 30 ms at
 * 50 connections.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/order-create.ts
 *
 * Creates and drops a scratch database of its own. Both servers run side by side and are measured
 * in alternating rounds (the median is reported), so a burst of other load on the machine hits both.
 * Options (env): BENCH_CONNECTIONS (50), BENCH_DURATION (10 s), BENCH_ROUNDS (3), BENCH_POOL_SIZE
 * (pg pool size of both servers, 10), BENCH_ADDRESSES (derived before measuring; by default enough for
 * 7,000 orders/s throughout, and the bench says so if the pool ran dry, which would void the figures).
 * The load generator (autocannon) runs in a child process: with two cores, sharing the server's
 * event loop would measure autocannon as much as the server.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import Fastify from "fastify";
import pg from "pg";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { openDatabase } from "../src/db/connection.js";
import { migrate } from "../src/db/migrate.js";
import { buildApp } from "../src/http/app.js";
import { createLogger } from "../src/logger.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { stopAddressDeriver } from "../src/wallet/address-deriver.js";
import { fillAddressPool } from "../src/wallet/fill-address-pool.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const duration = Number(process.env.BENCH_DURATION ?? 10);
const poolSize = Number(process.env.BENCH_POOL_SIZE ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = 3;
/** Enough free addresses for 7,000 orders/s through the warm-up and every round. */
const addressCount = Number(process.env.BENCH_ADDRESSES ?? (WARMUP_SECONDS + rounds * duration) * 7000);
const TEST_MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

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

async function load(
  url: string,
  headers: Record<string, string>,
  prefix: string,
  seconds = duration,
): Promise<LoadResult> {
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

async function admin<T>(fn: (client: pg.Client) => Promise<T>, connectionString = adminUrl): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  close(): Promise<void>;
}

async function startStablegate(url: string): Promise<Target> {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: join(here, "..", "data", "bench"),
    DATABASE_URL: url,
    ADMIN_PASSWORD: "bench-admin-password",
    SESSION_SECRET: "bench-session-secret-0123456789abcdef01234567",
    API_KEY_PEPPER: "bench-api-key-pepper-0123456789abcdef01234567",
    WALLET_MNEMONIC: TEST_MNEMONIC,
    TRON_NETWORK: "nile",
    LOG_LEVEL: "silent",
    MERCHANT_RATE_LIMIT_PER_MINUTE: "1000000",
  });
  const database = await openDatabase({ databaseUrl: url, poolSize });
  const ctx = await createContext(config, { database, log: createLogger({ level: "silent" }) });
  await migrate(database);
  const started = performance.now();
  while ((await fillAddressPool(ctx, { target: addressCount, batchSize: 2000 })).more);
  process.stdout.write(
    `address pool: ${addressCount} addresses derived and inserted in ${Math.round(performance.now() - started)} ms\n`,
  );
  const { apiKey } = await createMerchant(ctx, { name: "Bench Shop", webhookSecret: "bench-webhook-secret" });
  const app = await buildApp(ctx);
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    name: "POST /api/v1/payments",
    url: `${address}/api/v1/payments`,
    headers: { "x-api-key": apiKey },
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/**
 * The baseline: a bare Fastify endpoint doing one INSERT over a pg.Pool of the same size. "orders"
 * is a table like orders (LIKE orders INCLUDING ALL: the same columns, checks and seven indexes,
 * plus the merchant foreign key), so the ratio shows what the gateway adds on top of the one
 * unavoidable row; "minimal" is a five-column table with only its two unique indexes.
 */
async function startBare(url: string, kind: "orders" | "minimal"): Promise<Target> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on("error", () => undefined);
  const table = `bare_${kind}`;
  const merchantId = "00000000-0000-4000-8000-000000000001";
  let insert: string;
  if (kind === "orders") {
    await pool.query(`CREATE TABLE ${table} (LIKE orders INCLUDING ALL)`);
    await pool.query(`ALTER TABLE ${table} ADD FOREIGN KEY (merchant_id) REFERENCES merchants (id)`);
    await pool.query(
      `INSERT INTO merchants (id, name, api_key_hash, api_key_prefix, webhook_secret, created_at, updated_at)
       VALUES ($1, 'Bare', 'bare-hash', 'sg_test_bare', 'bare-webhook-secret', now(), now())`,
      [merchantId],
    );
    insert = `INSERT INTO ${table} (id, merchant_id, external_id, amount_expected, currency, network, status,
        address, callback_url, expires_at, created_at, updated_at)
      VALUES (gen_random_uuid(), $1, $2, $3, $4, 'nile', 'pending', 'TBareAddress', $5,
        now() + interval '30 minutes', now(), now()) RETURNING id`;
  } else {
    await pool.query(`CREATE TABLE ${table} (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      merchant_id uuid NOT NULL,
      external_id text NOT NULL,
      amount_expected numeric(38, 0) NOT NULL,
      currency text NOT NULL,
      callback_url text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (merchant_id, external_id))`);
    insert = `INSERT INTO ${table} (merchant_id, external_id, amount_expected, currency, callback_url)
      VALUES ($1, $2, $3, $4, $5) RETURNING id`;
  }
  const app = Fastify({ logger: false });
  app.post("/bare", async (request, reply) => {
    const body = request.body as {
      external_id: string;
      amount: string;
      currency: string;
      callback_url: string;
    };
    const { rows } = await pool.query<{ id: string }>(insert, [
      merchantId,
      body.external_id,
      body.amount.replace(".", ""),
      body.currency,
      body.callback_url,
    ]);
    return reply.status(201).send({ id: rows[0]?.id });
  });
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    name: kind === "orders" ? "bare: 1 INSERT, orders-like" : "bare: 1 INSERT, minimal",
    url: `${address}/bare`,
    headers: {},
    async close() {
      await app.close();
      await pool.end();
    },
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

function line(name: string, r: LoadResult): string {
  return `${name.padEnd(28)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${String(r.p50).padStart(3)} ms   p99 ${String(r.p99).padStart(3)} ms   (${r.requests} requests, non-2xx ${r.non2xx}, errors ${r.errors})`;
}

async function main(): Promise<void> {
  const name = `sg_bench_${randomBytes(5).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(adminUrl, name);
  const targets: Target[] = [];
  try {
    process.stdout.write(
      `order-create bench: ${connections} connections, ${duration} s per run, ${rounds} alternating rounds, ` +
        `pg pool ${poolSize} for both, load generator (autocannon) in a child process; load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(" ")}\n`,
    );
    targets.push(await startStablegate(url), await startBare(url, "orders"), await startBare(url, "minimal"));
    const results = new Map<Target, LoadResult[]>(targets.map((target) => [target, []]));
    for (const target of targets)
      await load(target.url, target.headers, `warmup-${randomBytes(4).toString("hex")}`, WARMUP_SECONDS);
    for (let round = 1; round <= rounds; round++) {
      for (const target of targets) {
        const result = await load(target.url, target.headers, `r${round}`);
        results.get(target)?.push(result);
        process.stdout.write(`round ${round}  ${line(target.name, result)}\n`);
      }
    }
    const [stablegate, likeOrders, minimal] = targets.map((target) => results.get(target) ?? []) as [
      LoadResult[],
      LoadResult[],
      LoadResult[],
    ];
    const summary = (name: string, runs: LoadResult[]) =>
      `median  ${name.padEnd(28)} ${median(runs.map((r) => r.rps))
        .toFixed(0)
        .padStart(6)} req/s   ` +
      `p50 ${median(runs.map((r) => r.p50))} ms   p99 ${median(runs.map((r) => r.p99))} ms\n`;
    process.stdout.write(
      summary("POST /api/v1/payments", stablegate) +
        summary("bare: 1 INSERT, orders-like", likeOrders) +
        summary("bare: 1 INSERT, minimal", minimal),
    );
    const rps = median(stablegate.map((r) => r.rps));
    const p99 = median(stablegate.map((r) => r.p99));
    const ratio = rps / median(likeOrders.map((r) => r.rps));
    const ratioMinimal = rps / median(minimal.map((r) => r.rps));
    process.stdout.write(
      `ratio vs orders-like INSERT ${ratio.toFixed(2)} (goal >= 0.50): ${ratio >= 0.5 ? "PASS" : "FAIL"}; ` +
        `ratio vs minimal INSERT ${ratioMinimal.toFixed(2)}; ` +
        `p99 ${p99} ms (goal <= 30 ms): ${p99 <= 30 ? "PASS" : "FAIL"}; load average now ${loadavg()[0]?.toFixed(1)}\n`,
    );
    const { rows } = await admin(
      (c) => c.query<{ free: string }>("SELECT count(*) AS free FROM free_addresses"),
      url,
    );
    const [pool] = rows;
    const free = Number(pool?.free ?? 0);
    process.stdout.write(
      free > 0
        ? `address pool: ${free} addresses still free at the end (never empty)\n`
        : "address pool: EMPTY at the end; creations derived inline, so the figures are void: raise BENCH_ADDRESSES\n",
    );
    const failed = stablegate.reduce((sum, r) => sum + r.non2xx + r.errors, 0);
    if (failed > 0) process.stdout.write(`non-2xx or errors on /api/v1/payments: ${failed}\n`);
  } finally {
    for (const target of targets) await target.close();
    // The derivation worker thread would keep the process alive after the figures.
    await stopAddressDeriver();
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
