/**
 * Recovery after a PostgreSQL crash-restart: a throwaway cluster (initdb + pg_ctl, as in
 * test/deploy/db-restart.test.ts), a real `serve --role api` and `serve --role worker` process and
 * the devnet over HTTP. Each round stops PostgreSQL with `pg_ctl stop -m immediate`, keeps it down
 * OUTAGE_MS, starts it and measures, from the moment pg_ctl start returns (the server accepts
 * connections):
 *   - the first successful order creation (POST /api/v1/payments polled every 50 ms),
 *   - the scanner's first block (scanner_cursor advancing, polled every 50 ms).
 * Baseline from the same run, with the database up: one order creation, and the wait from a random
 * instant to the next block the scanner applies (the block time and the scanner's poll). Also
 * printed: the slowest answer of the api while the database was down (503s).
 *
 *   npx tsx bench/db-restart.ts [--rounds 3] [--outage-ms 10000]
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { TronWeb } from "tronweb";
import { startDevnet } from "@stablegate/devnet";
import { createPgCluster, freePort } from "../test/helpers/pg-cluster.js";
import { poll } from "../test/helpers/poll.js";
import { startServiceProcess } from "../test/helpers/service-process.js";
import { TEST_ADMIN_PASSWORD, TEST_MNEMONIC } from "../test/helpers/config.js";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "3" }, "outage-ms": { type: "string", default: "10000" } },
});
const ROUNDS = Number(values.rounds);
const OUTAGE_MS = Number(values["outage-ms"]);

const cluster = await createPgCluster({ databases: ["stablegate"] });
const dbUrl = cluster.url("stablegate");
const devnet = await startDevnet({ blockTimeMs: 1000, solidifyAfter: 2, quiet: true });
const [apiPort, workerPort] = [await freePort(), await freePort()];
const apiUrl = `http://127.0.0.1:${apiPort}`;
const hot = await TronWeb.createAccount();
const env = (extra: Record<string, string>) => ({
  NODE_ENV: "development",
  LOG_LEVEL: "warn",
  DATABASE_URL: dbUrl,
  ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
  SESSION_SECRET: "bench-session-secret-0123456789abcdef0123456789",
  API_KEY_PEPPER: "bench-api-key-pepper-0123456789abcdef0123456789",
  TRON_NETWORK: "devnet",
  TRON_NODE_URL: devnet.url,
  USDT_CONTRACT: devnet.usdtContract,
  WALLET_MNEMONIC: TEST_MNEMONIC,
  HOST: "127.0.0.1",
  DATA_DIR: mkdtempSync(join(tmpdir(), "sg-bench-dbrestart-")),
  ...extra,
});
const processes = [
  startServiceProcess("api", env({ PORT: String(apiPort) })),
  startServiceProcess("worker", env({ PORT: String(workerPort), HOT_WALLET_PRIVATE_KEY: hot.privateKey })),
];
const outputs = () => processes.map((p) => `--- ${p.role}\n${p.output().slice(-3000)}`).join("\n");

const cursor = async (): Promise<number | undefined> => {
  const client = new pg.Client({ connectionString: dbUrl, connectionTimeoutMillis: 2000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ n: string | null }>(
      "SELECT max(block_number)::text AS n FROM scanner_cursor",
    );
    return rows[0]?.n === null || rows[0]?.n === undefined ? undefined : Number(rows[0].n);
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
};

let orderN = 0;
const createOrder = (apiKey: string) =>
  fetch(`${apiUrl}/api/v1/payments`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({
      external_id: `bench-${orderN++}`,
      amount: "1",
      currency: "USDT",
      callback_url: "http://127.0.0.1:9/hook",
    }),
    signal: AbortSignal.timeout(15_000),
  });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

try {
  await poll(
    "the api to listen",
    async () => ((await fetch(`${apiUrl}/api/v1/health/live`)).ok ? true : undefined),
    { timeoutMs: 120_000, describe: outputs },
  );
  const login = await fetch(`${apiUrl}/api/v1/admin/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const merchant = await fetch(`${apiUrl}/api/v1/admin/merchants`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ name: "bench", webhook_secret: "whsec_bench_db_restart_0123456789" }),
  });
  const { api_key: apiKey } = (await merchant.json()) as { api_key: string };
  await poll("the scanner to start", async () => cursor(), { timeoutMs: 120_000, describe: outputs });

  // Baseline with the database up.
  const baseOrder: number[] = [];
  const baseBlock: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let started = performance.now();
    const created = await createOrder(apiKey);
    if (created.status !== 201) throw new Error(`baseline order: ${created.status}`);
    baseOrder.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, Math.random() * 1000));
    const from = (await cursor()) ?? 0;
    started = performance.now();
    await poll("a block", async () => (((await cursor()) ?? 0) > from ? true : undefined), {
      timeoutMs: 30_000,
      describe: outputs,
      intervalMs: 50,
    });
    baseBlock.push(performance.now() - started);
  }

  const firstOrder: number[] = [];
  const firstBlock: number[] = [];
  const slowest503: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    await cluster.stop("immediate");
    const downAt = performance.now();
    let slowest = 0;
    while (performance.now() - downAt < OUTAGE_MS) {
      const started = performance.now();
      const refused = await createOrder(apiKey);
      slowest = Math.max(slowest, performance.now() - started);
      if (refused.status !== 503) throw new Error(`order during the outage: ${refused.status}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    slowest503.push(slowest);
    await cluster.start();
    const upAt = performance.now();
    const from = (await cursor()) ?? 0;
    const orderDone = poll(
      "an order",
      async () => ((await createOrder(apiKey)).status === 201 ? performance.now() - upAt : undefined),
      { timeoutMs: 120_000, describe: outputs, intervalMs: 50 },
    );
    const blockDone = poll(
      "a block",
      async () => (((await cursor()) ?? 0) > from ? performance.now() - upAt : undefined),
      { timeoutMs: 120_000, describe: outputs, intervalMs: 50 },
    );
    const [orderMs, blockMs] = await Promise.all([orderDone, blockDone]);
    firstOrder.push(orderMs);
    firstBlock.push(blockMs);
    process.stdout.write(
      `round ${round}: outage ${OUTAGE_MS} ms; slowest 503 ${slowest.toFixed(0)} ms; after the restart: ` +
        `first order ${orderMs.toFixed(0)} ms, scanner's first block ${blockMs.toFixed(0)} ms\n`,
    );
  }
  for (const p of processes) if (!p.alive()) throw new Error(`${p.role} exited\n${outputs()}`);
  process.stdout.write(
    [
      `db-restart bench: ${ROUNDS} rounds, outage ${OUTAGE_MS} ms, devnet block time 1000 ms`,
      `  baseline (database up):   order creation median ${median(baseOrder).toFixed(0)} ms; ` +
        `next scanned block median ${median(baseBlock).toFixed(0)} ms`,
      `  after the restart:        first order median ${median(firstOrder).toFixed(0)} ms ` +
        `(max ${Math.max(...firstOrder).toFixed(0)}); scanner's first block median ${median(firstBlock).toFixed(0)} ms ` +
        `(max ${Math.max(...firstBlock).toFixed(0)})`,
      `  while down:               slowest 503 answer ${Math.max(...slowest503).toFixed(0)} ms`,
      `  processes alive at the end: ${processes.map((p) => `${p.role}=${p.alive()}`).join(", ")}`,
    ].join("\n") + "\n",
  );
} finally {
  await Promise.all(processes.map((p) => p.stop()));
  await devnet.close();
  await cluster.destroy();
}
