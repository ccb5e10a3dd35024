/**
 * Webhook delivery throughput and latency against real PostgreSQL, with the production sender in
 * two worker processes and a local node:http receiver answering 200 at once.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/webhooks.ts
 *
 * Phase 1 (throughput): DELIVERIES due deliveries committed in one transaction while two workers
 * run; deliveries per second until the receiver has seen every idempotency key, and how many were
 * lost (must be 0) or sent twice (must be 0). Goal >= 2,000/s.
 * Phase 2 (latency): two workers; outcomes committed at a steady rate through the real outcome path
 * (transitionOrder + enqueueOutcomeWebhook); receive time minus commit time. Goal p99 <= 250 ms.
 *
 * BENCH_BEFORE_DIR=/path/to/another/checkout also runs that checkout's worker
 * (bench/webhook-worker.ts, with its own sender code) in alternating rounds against the same
 * database and receiver: a same-run baseline on a shared machine.
 *
 * Creates and drops a scratch database. Env: BENCH_DATABASE_URL (or TEST_DATABASE_URL),
 * BENCH_DELIVERIES (10000), BENCH_ROUNDS (2), BENCH_RATE (outcomes/s, 50),
 * BENCH_LATENCY_SECONDS (10).
 *
 * Each phase-1 line also prints the CPU time per delivery of the two workers and of their
 * PostgreSQL backends (found by application_name; read from /proc, so only with a local server):
 * on a shared machine the rate moves with the neighbours' load, the CPU cost much less.
 * Medians over rounds: the middle value, or the mean of the two middle ones for an even count.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import pg from "pg";
import { loadConfig } from "../src/config.js";
import { createContext, type Context } from "../src/context.js";
import { openDatabase } from "../src/db/connection.js";
import { migrate } from "../src/db/migrate.js";
import { merchants, orderEvents, orders, webhookDeliveries } from "../src/db/schema.js";
import { createLogger } from "../src/logger.js";
import { transitionOrder } from "../src/orders/transitions.js";
import {
  buildWebhookPayload,
  enqueueOutcomeWebhook,
  idempotencyKey,
} from "../src/webhooks/enqueue-webhook.js";

const adminUrl =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/test";
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WORKER = fileURLToPath(new URL("./webhook-worker.ts", import.meta.url));
const BEFORE_DIR = process.env.BENCH_BEFORE_DIR;

interface Variant {
  name: string;
  script: string;
  cwd: string | undefined;
}
const VARIANTS: Variant[] = [
  ...(BEFORE_DIR
    ? [{ name: "before", script: join(BEFORE_DIR, "bench/webhook-worker.ts"), cwd: BEFORE_DIR }]
    : []),
  { name: BEFORE_DIR ? "after" : "this tree", script: WORKER, cwd: undefined },
];

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

interface Worker {
  id: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startWorker(databaseUrl: string, id: string, variant: Variant): Promise<Worker> {
  // BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the workers.
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", variant.script], {
    // PGAPPNAME names the worker's PostgreSQL connections, so the bench can find their backends.
    env: { ...process.env, BENCH_WORKER_DATABASE_URL: databaseUrl, BENCH_WORKER_ID: id, PGAPPNAME: id },
    stdio: ["ignore", "pipe", "inherit"],
    ...(variant.cwd ? { cwd: variant.cwd } : {}),
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    void exited.then(() => reject(new Error(`worker ${id} exited before ready`)));
  });
  return {
    id,
    child,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The receiver: 200 at once; counts every request and remembers the first arrival per key. */
async function startReceiver() {
  const firstSeen = new Map<string, number>();
  let total = 0;
  let onKey: (() => void) | undefined;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      total += 1;
      const key = String(req.headers["x-idempotency-key"]);
      if (!firstSeen.has(key)) firstSeen.set(key, performance.timeOrigin + performance.now());
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
      onKey?.();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    firstSeen,
    total: () => total,
    waitForKeys(count: number, timeoutMs: number): Promise<boolean> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          onKey = undefined;
          resolve(false);
        }, timeoutMs);
        const check = () => {
          if (firstSeen.size >= count) {
            clearTimeout(timer);
            onKey = undefined;
            resolve(true);
          }
        };
        onKey = check;
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function orderRows(merchantId: string, callbackUrl: string, count: number, status: "confirmed" | "detected") {
  const now = new Date();
  return Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    merchantId,
    externalId: `bench-${status}-${i}-${randomBytes(4).toString("hex")}`,
    amountExpected: 10_000_000n,
    amountReceived: status === "confirmed" ? 10_000_000n : 0n,
    network: "devnet",
    status,
    address: `TBench${String(i).padStart(28, "0")}`,
    txHash: randomBytes(32).toString("hex"),
    fromAddress: "TBenchPayer000000000000000000000001",
    callbackUrl,
    expiresAt: new Date(now.getTime() + 3600_000),
    createdAt: now,
    updatedAt: now,
  }));
}

/** Phase 1 data: confirmed orders, their outcome events and due deliveries, in one transaction. */
async function commitDueDeliveries(ctx: Context, merchantId: string, callbackUrl: string): Promise<void> {
  const rows = orderRows(merchantId, callbackUrl, DELIVERIES, "confirmed");
  await ctx.db.transaction(async (tx) => {
    for (let i = 0; i < rows.length; i += 1000) {
      const chunk = rows.slice(i, i + 1000);
      const now = new Date();
      const events = chunk.map((order) => ({
        id: randomUUID(),
        orderId: order.id,
        eventType: "payment_confirmed",
        payload: { from: "detected", to: "confirmed" },
        createdAt: now,
      }));
      await tx.insert(orders).values(chunk);
      await tx.insert(orderEvents).values(events);
      await tx.insert(webhookDeliveries).values(
        chunk.map((order, j) => ({
          id: randomUUID(),
          orderId: order.id,
          merchantId,
          orderEventId: events[j]!.id,
          event: "payment.confirmed",
          idempotencyKey: idempotencyKey(order.id, "payment.confirmed", now),
          payload: JSON.stringify(
            buildWebhookPayload(order as typeof orders.$inferSelect, "payment.confirmed", now),
          ),
          nextAttemptAt: now,
          createdAt: now,
          updatedAt: now,
        })),
      );
    }
  });
}

/** Phase 2: detected -> confirmed + outbox insert, the confirmer's transaction. Returns the key. */
async function commitOutcome(ctx: Context, orderId: string): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
    const moved = await transitionOrder(ctx, tx, {
      order: order!,
      to: "confirmed",
      event: "payment_confirmed",
      patch: { amountReceived: 10_000_000n, confirmedAt: ctx.clock.now() },
    });
    await enqueueOutcomeWebhook(ctx, tx, {
      order: moved.order,
      event: "payment.confirmed",
      orderEventId: moved.eventId,
      eventCreatedAt: moved.eventCreatedAt,
    });
    return idempotencyKey(orderId, "payment.confirmed", moved.eventCreatedAt);
  });
}

async function startPair(databaseUrl: string, variant: Variant, round: number): Promise<Worker[]> {
  return Promise.all(
    ["a", "b"].map((w) => startWorker(databaseUrl, `bench-${variant.name}-${round}-${w}`, variant)),
  );
}

async function pendingCount(database: Awaited<ReturnType<typeof openDatabase>>): Promise<string | undefined> {
  const { rows } = await database.session((s) =>
    s.query<{ n: string }>("SELECT count(*)::text AS n FROM webhook_deliveries WHERE status = 'pending'"),
  );
  return rows[0]?.n;
}

interface ThroughputRun {
  rate: number;
  endToEnd: number;
  lost: number;
  duplicates: number;
  complete: boolean;
  /** CPU microseconds per delivery of the two workers and of their PostgreSQL backends. */
  workerCpuUs: number | undefined;
  databaseCpuUs: number | undefined;
}

/** CPU seconds so far of the workers and of their backends (application_name = worker id). */
async function cpuSnapshot(
  database: Awaited<ReturnType<typeof openDatabase>>,
  workers: Worker[],
): Promise<{ workers: number | undefined; backends: Map<number, number> }> {
  const ids = workers.map((w) => w.id);
  const { rows } = await database.session((s) =>
    s.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = ANY($1)", [ids]),
  );
  const backends = new Map<number, number>();
  for (const { pid } of rows) {
    const seconds = cpuSeconds(pid);
    if (seconds !== undefined) backends.set(pid, seconds);
  }
  const perWorker = workers.map((w) => cpuSeconds(w.child.pid));
  return {
    workers: perWorker.includes(undefined) ? undefined : perWorker.reduce<number>((a, b) => a + (b ?? 0), 0),
    backends,
  };
}

/** Phase 1 once: commit DELIVERIES due deliveries, wait for every key and for every record. */
async function throughputRun(
  ctx: Context,
  database: Awaited<ReturnType<typeof openDatabase>>,
  merchantId: string,
  workers: Worker[],
): Promise<ThroughputRun> {
  const receiver = await startReceiver();
  try {
    const before = await cpuSnapshot(database, workers);
    await commitDueDeliveries(ctx, merchantId, receiver.url);
    const committed = performance.now();
    const complete = await receiver.waitForKeys(DELIVERIES, 120_000);
    const received = performance.now();
    let settled = received;
    while ((await pendingCount(database)) !== "0") {
      await new Promise((resolve) => setTimeout(resolve, 20));
      settled = performance.now();
    }
    const after = await cpuSnapshot(database, workers);
    // A backend opened during the run counts from its start (its connection set-up included).
    let backendSeconds = 0;
    for (const [pid, seconds] of after.backends) backendSeconds += seconds - (before.backends.get(pid) ?? 0);
    const perDelivery = (seconds: number) => Math.round((seconds / DELIVERIES) * 1e6);
    // Late duplicates (a lost lease re-sent) would arrive before the records settle.
    return {
      workerCpuUs:
        after.workers === undefined || before.workers === undefined
          ? undefined
          : perDelivery(after.workers - before.workers),
      databaseCpuUs: after.backends.size === 0 ? undefined : perDelivery(backendSeconds),
      rate: DELIVERIES / ((received - committed) / 1000),
      endToEnd: DELIVERIES / ((settled - committed) / 1000),
      lost: DELIVERIES - receiver.firstSeen.size,
      duplicates: receiver.total() - receiver.firstSeen.size,
      complete,
    };
  } finally {
    await receiver.close();
  }
}

/** Phase 2 once: outcomes at RATE/s through the outcome path; commit -> first arrival. */
async function latencyRun(ctx: Context, merchantId: string): Promise<number[]> {
  const receiver = await startReceiver();
  try {
    const count = RATE * LATENCY_SECONDS;
    const pending = orderRows(merchantId, receiver.url, count, "detected");
    for (let i = 0; i < pending.length; i += 1000)
      await ctx.db.insert(orders).values(pending.slice(i, i + 1000));
    const commits = new Map<string, number>();
    const started = performance.now();
    for (let i = 0; i < count; i += 1) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const key = await commitOutcome(ctx, pending[i]!.id);
      commits.set(key, performance.timeOrigin + performance.now());
    }
    await receiver.waitForKeys(count, 30_000);
    return [...commits]
      .map(([key, at]) => (receiver.firstSeen.get(key) ?? Number.POSITIVE_INFINITY) - at)
      .sort((a, b) => a - b);
  } finally {
    await receiver.close();
  }
}

/** The middle value; for an even count the mean of the two middle ones (not the higher one). */
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** CPU seconds (user + system) a process has used so far, from /proc; undefined elsewhere. */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const name = `sg_bench_webhooks_${randomBytes(4).toString("hex")}`;
  await admin(`CREATE DATABASE ${name}`);
  const databaseUrl = withDatabase(adminUrl, name);
  const database = await openDatabase({ databaseUrl, poolSize: 4 });
  let workers: Worker[] = [];
  try {
    await migrate(database);
    const config = loadConfig({
      NODE_ENV: "development",
      DATA_DIR: mkdtempSync(join(tmpdir(), "stablegate-bench-")),
      ADMIN_PASSWORD: "bench-admin-password",
      SESSION_SECRET: "bench-session-secret-0123456789abcdef0123456789",
      API_KEY_PEPPER: "bench-api-key-pepper-0123456789abcdef0123456789",
      WALLET_MNEMONIC:
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
      TRON_NETWORK: "devnet",
      TRON_NODE_URL: "http://127.0.0.1:1",
      LOG_LEVEL: "silent",
    });
    const ctx = await createContext(config, { database, log: createLogger({ level: "silent" }) });
    const merchantId = randomUUID();
    const now = new Date();
    await ctx.db.insert(merchants).values({
      id: merchantId,
      name: "bench",
      apiKeyHash: randomBytes(32).toString("hex"),
      apiKeyPrefix: "sg_test_bench0",
      webhookSecret: "bench-webhook-secret",
      createdAt: now,
      updatedAt: now,
    });
    console.log(
      `database ${name}; ${DELIVERIES} deliveries per run, ${ROUNDS} rounds of ${VARIANTS.map(
        (v) => v.name,
      ).join(" / ")}, 2 worker processes each; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} (shared machine)`,
    );
    const runs = new Map<Variant, ThroughputRun[]>(VARIANTS.map((v) => [v, []]));
    const latencies = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const variant of VARIANTS) {
        workers = await startPair(databaseUrl, variant, round);
        const run = await throughputRun(ctx, database, merchantId, workers);
        runs.get(variant)?.push(run);
        console.log(
          `round ${round} ${variant.name.padEnd(9)} phase 1: ${Math.round(run.rate)} deliveries/s ` +
            `(${Math.round(run.endToEnd)}/s recorded), all received: ${run.complete ? "yes" : "NO"}, ` +
            `lost ${run.lost}, duplicated ${run.duplicates}; CPU per delivery: workers ${
              run.workerCpuUs ?? "?"
            } us, their PostgreSQL backends ${run.databaseCpuUs ?? "?"} us`,
        );
        if (round === ROUNDS) {
          const sorted = await latencyRun(ctx, merchantId);
          latencies.set(variant, sorted);
          console.log(
            `round ${round} ${variant.name.padEnd(9)} phase 2: ${RATE * LATENCY_SECONDS} outcomes at ${RATE}/s, ` +
              `commit -> first attempt p50 ${Math.round(percentile(sorted, 50))} ms, p95 ${Math.round(
                percentile(sorted, 95),
              )} ms, p99 ${Math.round(percentile(sorted, 99))} ms, max ${Math.round(
                sorted[sorted.length - 1] ?? NaN,
              )} ms, not received ${sorted.filter((l) => !Number.isFinite(l)).length}`,
          );
        }
        await Promise.all(workers.map((w) => w.stop()));
        workers = [];
      }
    }
    for (const variant of VARIANTS) {
      const list = runs.get(variant) ?? [];
      const sorted = latencies.get(variant) ?? [];
      const rate = median(list.map((r) => r.rate));
      const p99 = percentile(sorted, 99);
      const lost = list.reduce((sum, r) => sum + r.lost, 0);
      const duplicates = list.reduce((sum, r) => sum + r.duplicates, 0);
      const cpu = (pick: (r: ThroughputRun) => number | undefined) => {
        const values = list.map(pick).filter((v): v is number => v !== undefined);
        return values.length === 0 ? "?" : String(Math.round(median(values)));
      };
      console.log(
        `median ${variant.name.padEnd(9)} ${Math.round(rate)} deliveries/s (goal >= 2000: ${
          rate >= 2000 ? "PASS" : "FAIL"
        }), commit -> first attempt p99 ${Math.round(p99)} ms (goal <= 250: ${
          p99 <= 250 ? "PASS" : "FAIL"
        }), lost ${lost}, duplicated ${duplicates}; CPU per delivery: workers ${cpu(
          (r) => r.workerCpuUs,
        )} us, PostgreSQL ${cpu((r) => r.databaseCpuUs)} us (medians)`,
      );
    }
    console.log(`load average now ${loadavg()[0]?.toFixed(1)}`);
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await database.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

await main();
