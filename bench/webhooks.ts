/**
 * Webhook delivery throughput and latency against real PostgreSQL, with the production sender in
 * two worker processes and a local node:http receiver answering 200 at once.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/webhooks.ts
 *
 * Phase 1 (throughput): 10,000 due deliveries committed in one transaction while two workers
 * run; deliveries per second until the receiver has seen every idempotency key, and how many were
 * lost (must be 0) or sent twice. Goal >= 1,000/s, 0 lost.
 * Phase 2 (latency): one worker; outcomes committed at a steady rate through the real outcome path
 * (transitionOrder + enqueueOutcomeWebhook); receive time minus commit time. Goal p99 <= 1 s.
 *
 * Creates and drops a scratch database. Env: BENCH_DATABASE_URL (or TEST_DATABASE_URL),
 * BENCH_DELIVERIES (10000), BENCH_RATE (outcomes/s, 50), BENCH_LATENCY_SECONDS (10).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
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
const WORKER = fileURLToPath(new URL("./webhook-worker.ts", import.meta.url));

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
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startWorker(databaseUrl: string, id: string): Promise<Worker> {
  // BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the workers.
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", WORKER], {
    env: { ...process.env, BENCH_WORKER_DATABASE_URL: databaseUrl, BENCH_WORKER_ID: id },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    void exited.then(() => reject(new Error(`worker ${id} exited before ready`)));
  });
  return {
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

async function main(): Promise<void> {
  const name = `sg_bench_webhooks_${randomBytes(4).toString("hex")}`;
  await admin(`CREATE DATABASE ${name}`);
  const databaseUrl = withDatabase(adminUrl, name);
  const database = await openDatabase({ databaseUrl, poolSize: 4 });
  const receiver = await startReceiver();
  const workers: Worker[] = [];
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

    console.log(`database ${name}; ${DELIVERIES} deliveries; receiver ${receiver.url}`);
    workers.push(await startWorker(databaseUrl, "bench-a"), await startWorker(databaseUrl, "bench-b"));
    // Phase 1 -----------------------------------------------------------------------------------
    const insertStarted = performance.now();
    await commitDueDeliveries(ctx, merchantId, receiver.url);
    const committed = performance.now();
    console.log(
      `phase 1: ${DELIVERIES} due deliveries committed in ${Math.round(committed - insertStarted)} ms`,
    );
    const complete = await receiver.waitForKeys(DELIVERIES, 120_000);
    const received = performance.now();
    let settled = received;
    for (;;) {
      const { rows } = await database.session((s) =>
        s.query<{ n: string }>("SELECT count(*)::text AS n FROM webhook_deliveries WHERE status = 'pending'"),
      );
      if (rows[0]?.n === "0") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
      settled = performance.now();
    }
    const seconds = (received - committed) / 1000;
    const lost = DELIVERIES - receiver.firstSeen.size;
    console.log(
      [
        `phase 1 (2 worker processes, concurrency 32 each):`,
        `  all ${DELIVERIES} keys received: ${complete ? "yes" : "NO"} in ${seconds.toFixed(2)} s`,
        `  throughput: ${Math.round(DELIVERIES / seconds)} deliveries/s (goal >= 1000)`,
        `  all recorded as delivered after ${((settled - committed) / 1000).toFixed(2)} s ` +
          `(${Math.round(DELIVERIES / ((settled - committed) / 1000))}/s end to end)`,
        `  requests: ${receiver.total()}, unique keys: ${receiver.firstSeen.size}, ` +
          `lost: ${lost}, duplicates: ${receiver.total() - receiver.firstSeen.size}`,
      ].join("\n"),
    );

    // Phase 2 -----------------------------------------------------------------------------------
    await workers.pop()!.stop();
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
    await receiver.waitForKeys(DELIVERIES + count, 30_000);
    const latencies = [...commits]
      .map(([key, at]) => (receiver.firstSeen.get(key) ?? Number.POSITIVE_INFINITY) - at)
      .sort((a, b) => a - b);
    const missing = latencies.filter((l) => !Number.isFinite(l)).length;
    const ms = (v: number) => `${Math.round(v)} ms`;
    console.log(
      [
        `phase 2 (1 worker, ${count} outcomes at ${RATE}/s through transitionOrder + enqueueOutcomeWebhook):`,
        `  commit -> first attempt received: p50 ${ms(percentile(latencies, 50))}, p95 ${ms(
          percentile(latencies, 95),
        )}, p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1] ?? NaN)} (goal p99 <= 1000 ms)`,
        `  not received: ${missing}`,
      ].join("\n"),
    );
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await receiver.close();
    await database.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

await main();
