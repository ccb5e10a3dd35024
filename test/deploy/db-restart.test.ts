/**
 * Every process rides out a PostgreSQL crash-restart. A throwaway PostgreSQL cluster of
 * this test's own (initdb + pg_ctl, test/helpers/pg-cluster.ts), real `serve --role api`, `--role
 * worker` and `--role all` processes, the devnet over HTTP and a real webhook receiver:
 *
 * 1. The processes are started while PostgreSQL is down: they log that they wait, back off, and do
 *    not exit; they come up once it starts.
 * 2. Orders are paid before the outage; more are paid and the server is stopped in immediate mode
 *    (a crash) as soon as the scanner sees one of them; more are paid on chain while it is down,
 *    when the api answers 503 SERVICE_UNAVAILABLE with Retry-After (never a 500, never a hang),
 *    /api/v1/health 503 and /api/v1/health/live 200 on every process. After 10 s it starts again,
 *    and orders are created and paid after it. No process exits; every order reaches its outcome,
 *    each outcome webhook arrives (one event per order), each order is swept exactly once, and
 *    `stablegate check-rollups` passes. The recovery times are printed.
 * 3. A stray transfer is in the mix: USDT paid while the server is down to a pool address no order
 *    ever held is recorded once it is back, confirmed, and swept to the cold wallet exactly once by
 *    its address's own settlement (the chain's transfers from that address to the cold wallet).
 *
 * Missing PostgreSQL server binaries fail the test (no skip): CI machines have them.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type Devnet } from "@stablegate/devnet";
import { evmHex } from "@stablegate/tron/address";
import { createNodeClient } from "@stablegate/tron/node-client";
import { devnetEnv, TEST_ADMIN_PASSWORD, TEST_MNEMONIC, TEST_SECRETS } from "../helpers/config.js";
import { createPgCluster, freePort, type PgCluster } from "../helpers/pg-cluster.js";
import { startServiceProcess, type ServiceProcess } from "../helpers/service-process.js";
import { poll } from "../helpers/poll.js";
import { usdtBalance } from "../helpers/usdt.js";
import { startReceiver, type Receiver } from "../webhooks/fixtures.js";
import { fund, postStatus } from "../devnet/helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const OUTAGE_MS = 10_000;

interface Paid {
  id: string;
  address: string;
  phase: "before" | "mid" | "during" | "after";
  expected: bigint;
  paid: bigint;
}

let cluster: PgCluster;
let devnet: Devnet;
let hook: Receiver;
const processes: ServiceProcess[] = [];
let dbUrl: string;
let apiUrl: string;
let workerUrl: string;
let allUrl: string;
let cold: string;
let cookie = "";
let apiKey = "";

const sql = async <T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> => {
  const db = new pg.Client({ connectionString: dbUrl, connectionTimeoutMillis: 3000 });
  db.on("error", () => undefined);
  await db.connect();
  try {
    return (await db.query(text, values)).rows as T[];
  } finally {
    await db.end();
  }
};

const outputs = () =>
  processes.map((p) => `--- ${p.role} (alive ${p.alive()}) ---\n${p.output().slice(-6000)}`).join("\n");

async function createOrder(externalId: string, amount: string): Promise<Response> {
  return fetch(`${apiUrl}/api/v1/payments`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({ external_id: externalId, amount, currency: "USDT", callback_url: hook.url }),
    signal: AbortSignal.timeout(15_000),
  });
}

async function newOrder(phase: Paid["phase"], n: number, amount = "2"): Promise<Paid> {
  const response = await createOrder(`${phase}-${n}`, amount);
  const body = (await response.json()) as { id: string; address: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  const expected = BigInt(amount) * 1_000_000n;
  return { id: body.id, address: body.address, phase, expected, paid: 0n };
}

/** A USDT transfer from the faucet, mined into the next block (not waited for solidification). */
async function pay(order: Paid, units: bigint): Promise<void> {
  const r = await postStatus(devnet, "/devnet/fund", {
    address: order.address,
    usdt_units: units.toString(),
  });
  if (r.status !== 200) throw new Error(`payment failed: ${r.text}`);
  order.paid += units;
}

function env(extra: Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: "development",
    LOG_LEVEL: "info",
    DATABASE_URL: dbUrl,
    ...TEST_SECRETS,
    ...devnetEnv(devnet),
    CONFIRMATIONS: "3",
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    HOST: "127.0.0.1",
    DATA_DIR: mkdtempSync(join(tmpdir(), "sg-dbrestart-")),
    ...extra,
  };
}

/** The amounts of every USDT Transfer on the chain from `from` to the cold wallet, block by block. */
async function transfersToCold(from: string): Promise<bigint[]> {
  const topic = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
  const [fromTopic, toTopic] = [from, cold].map((a) => evmHex(a).padStart(64, "0"));
  const client = createNodeClient({ baseUrl: devnet.url });
  const out: bigint[] = [];
  try {
    const head = (await client.getNowBlock()).block_header.raw_data.number ?? 0;
    for (let n = 0; n <= head; n++) {
      for (const info of await client.getTransactionInfoByBlockNum(n)) {
        if (info.receipt?.result !== "SUCCESS") continue;
        for (const log of info.log ?? []) {
          if (log.topics?.[0] === topic && log.topics[1] === fromTopic && log.topics[2] === toTopic) {
            out.push(BigInt(`0x${log.data}`));
          }
        }
      }
    }
  } finally {
    await client.close();
  }
  return out;
}

async function status(url: string, path: string, init: RequestInit = {}) {
  const started = performance.now();
  const response = await fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(20_000) });
  const text = await response.text();
  return {
    status: response.status,
    text,
    retryAfter: response.headers.get("retry-after"),
    ms: performance.now() - started,
  };
}

beforeAll(async () => {
  // Fails (not skips) when the server binaries are missing.
  cluster = await createPgCluster({ databases: ["stablegate"] });
  dbUrl = cluster.url("stablegate");
  devnet = await startDevnet({ blockTimeMs: 300, solidifyAfter: 2, quiet: true });
  hook = await startReceiver();
}, 120_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await hook?.close();
  await devnet?.close();
  await cluster?.destroy();
}, 60_000);

describe("PostgreSQL down at start-up and crash-restarted under load (real processes)", () => {
  it("processes started while PostgreSQL is down wait, log the wait, and come up when it starts", async () => {
    const hot = await TronWeb.createAccount();
    cold = (await TronWeb.createAccount()).address.base58;
    await fund(devnet, hot.address.base58, "5000");
    const [apiPort, workerPort, allPort] = [await freePort(), await freePort(), await freePort()];
    apiUrl = `http://127.0.0.1:${apiPort}`;
    workerUrl = `http://127.0.0.1:${workerPort}`;
    allUrl = `http://127.0.0.1:${allPort}`;
    const wallets = {
      COLD_WALLET_ADDRESS: cold,
      HOT_WALLET_ADDRESS: hot.address.base58,
      SWEEP_ENABLED: "true",
    };
    const signer = { WALLET_MNEMONIC: TEST_MNEMONIC, HOT_WALLET_PRIVATE_KEY: hot.privateKey };

    await cluster.stop("fast");
    processes.push(
      startServiceProcess("api", env({ ...wallets, PORT: String(apiPort), WALLET_MNEMONIC: TEST_MNEMONIC })),
      startServiceProcess("worker", env({ ...wallets, ...signer, PORT: String(workerPort) })),
      startServiceProcess("all", env({ ...wallets, ...signer, PORT: String(allPort) })),
    );
    // Each process logs its wait more than once (backoff), and none exits.
    await poll(
      "every process to log at least two waits for the database",
      async () =>
        processes.every(
          (p) => (p.output().match(/database unavailable at start-up, waiting/g) ?? []).length >= 2,
        ) || undefined,
      { timeoutMs: 60_000, describe: outputs },
    );
    for (const p of processes) expect(p.alive(), outputs()).toBe(true);
    const waits = processes[0]!
      .output()
      .split("\n")
      .filter((line) => line.includes("database unavailable at start-up"))
      .map((line) => JSON.parse(line) as { retryInMs: number; attempt: number; err: unknown });
    expect(waits[0]).toMatchObject({ attempt: 1 });
    // No host, user or driver text in the wait line.
    expect(JSON.stringify(waits)).not.toMatch(/127\.0\.0\.1|postgres@|ECONNREFUSED 127/);

    await cluster.start();
    for (const url of [apiUrl, workerUrl, allUrl]) {
      await poll(
        `${url} to answer health`,
        async () => ((await status(url, "/api/v1/health/live")).status === 200 ? true : undefined),
        { timeoutMs: 90_000, describe: outputs },
      );
    }
    for (const p of processes) expect(p.alive(), outputs()).toBe(true);
    expect(processes[0]!.output()).toContain("database reachable");
  }, 180_000);

  it("a crash-restart mid-payment: no process exits, 503s while down, every order settles once", async () => {
    expect(
      processes.every((p) => p.alive()),
      outputs(),
    ).toBe(true);
    const login = await fetch(`${apiUrl}/api/v1/admin/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
    });
    cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie).toMatch(/^admin_token=/);
    const merchant = await fetch(`${apiUrl}/api/v1/admin/merchants`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ name: "DB restart shop", webhook_secret: "whsec_db_restart_0123456789abcdef" }),
    });
    expect(merchant.status).toBe(201);
    apiKey = ((await merchant.json()) as { api_key: string }).api_key;
    await poll(
      "a scanner to start",
      async () => ((await sql("SELECT 1 FROM scanner_cursor")).length > 0 ? true : undefined),
      { timeoutMs: 60_000, describe: outputs },
    );

    // Before: paid and settled with the database up.
    const orders: Paid[] = [];
    for (let i = 0; i < 3; i++) orders.push(await newOrder("before", i));
    for (const order of orders) await pay(order, order.expected);
    const orderStatus = async (ids: string[]) =>
      sql<{ id: string; status: string }>("SELECT id::text, status FROM orders WHERE id = ANY($1::uuid[])", [
        ids,
      ]);
    await poll(
      "the orders paid before the outage to complete",
      async () =>
        (await orderStatus(orders.map((o) => o.id))).every((o) => o.status === "completed") || undefined,
      { timeoutMs: 60_000, describe: async () => JSON.stringify(await orderStatus(orders.map((o) => o.id))) },
    );

    // Mid: paid (one overpaid), and the server crashes as soon as the scanner has seen a payment.
    const mid = [await newOrder("mid", 0), await newOrder("mid", 1), await newOrder("mid", 2)];
    const during = [await newOrder("during", 0), await newOrder("during", 1), await newOrder("during", 2)];
    orders.push(...mid, ...during);
    await pay(mid[0]!, mid[0]!.expected);
    await pay(mid[1]!, mid[1]!.expected + 500_000n);
    await pay(mid[2]!, mid[2]!.expected);
    await poll(
      "the scanner to see a payment made mid-outage",
      async () => (await orderStatus(mid.map((o) => o.id))).some((o) => o.status !== "pending") || undefined,
      {
        timeoutMs: 30_000,
        describe: async () => JSON.stringify(await orderStatus(mid.map((o) => o.id))),
        intervalMs: 50,
      },
    );
    const midState = await orderStatus(mid.map((o) => o.id));
    // The crash also catches statements in flight on checked-out connections: a scanner batch
    // transaction (worker, all) and an admin login transaction (api) wait on locks held here.
    const blocker = new pg.Client({ connectionString: dbUrl });
    blocker.on("error", () => undefined);
    await blocker.connect();
    await blocker.query("BEGIN");
    await blocker.query("LOCK TABLE scanner_cursor, login_attempts IN ACCESS EXCLUSIVE MODE");
    const loginInFlight = status(apiUrl, "/api/v1/admin/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
    }).catch((error: unknown) => ({ status: -1, text: `no answer: ${String(error)}` }));
    const waiting = async () =>
      (
        await sql<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
        )
      )[0]?.n ?? 0;
    await poll(
      "a scanner transaction and a login to wait on the test's locks",
      async () => ((await waiting()) >= 2 ? true : undefined),
      { timeoutMs: 30_000, describe: async () => `waiting: ${await waiting()}`, intervalMs: 50 },
    );
    // A pool address no order will take before the end (claims take the lowest index first).
    const [spare] = await sql<{ address: string }>(
      "SELECT address FROM addresses WHERE status = 'free' ORDER BY derivation_index DESC LIMIT 1",
    );
    if (!spare) throw new Error("no free address in the pool");
    await cluster.stop("immediate");
    const downAt = performance.now();
    const cutLogin = await loginInFlight;
    expect(cutLogin.status, `${cutLogin.text}\n${outputs()}`).toBe(503);

    // During: payments on chain (one underpaid), and the api refuses politely.
    await pay(during[0]!, during[0]!.expected);
    await pay(during[1]!, during[1]!.expected);
    await pay(during[2]!, during[2]!.expected - 500_000n);
    // The stray, paid while the database is down.
    const stray = await postStatus(devnet, "/devnet/fund", { address: spare.address, usdt_units: "1500000" });
    expect(stray.status, stray.text).toBe(200);
    const probes: { what: string; status: number; ms: number; retryAfter: string | null }[] = [];
    const probe = async (what: string, url: string, path: string, init?: RequestInit) => {
      const r = await status(url, path, init);
      probes.push({ what, status: r.status, ms: r.ms, retryAfter: r.retryAfter });
      return r;
    };
    let round = 0;
    while (performance.now() - downAt < OUTAGE_MS) {
      const created = await createOrder(`refused-${round++}`, "1");
      probes.push({
        what: "create order",
        status: created.status,
        ms: 0,
        retryAfter: created.headers.get("retry-after"),
      });
      const body = (await created.json()) as { code?: string };
      if (created.status === 503) expect(body.code).toBe("SERVICE_UNAVAILABLE");
      await probe("read order", apiUrl, `/api/v1/payments/${orders[0]!.id}`, {
        headers: { "x-api-key": apiKey },
      });
      await probe("admin orders", apiUrl, "/api/v1/admin/orders", { headers: { cookie } });
      for (const [name, url] of [
        ["api", apiUrl],
        ["worker", workerUrl],
        ["all", allUrl],
      ] as const) {
        await probe(`${name} health`, url, "/api/v1/health");
        await probe(`${name} live`, url, "/api/v1/health/live");
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    await cluster.start();
    const upAt = performance.now();
    const refused = probes.filter((p) => !p.what.endsWith("live"));
    expect(refused.length).toBeGreaterThan(10);
    for (const p of refused) expect(p, JSON.stringify(p)).toMatchObject({ status: 503 });
    for (const p of probes.filter((p) => p.what.endsWith("live"))) expect(p.status).toBe(200);
    for (const p of refused.filter((p) => !p.what.endsWith("health"))) expect(p.retryAfter).toBe("5");
    // Never a hang: within the connect timeout (5 s) and the health probe's 2 s.
    expect(Math.max(...probes.map((p) => p.ms))).toBeLessThan(6_000);

    // After: the first order created once the database is back is the recovery time.
    const cursorAtRestart = Number(
      (
        await poll(
          "the database to accept connections",
          async () =>
            sql<{ n: string }>("SELECT coalesce(max(block_number), 0)::text AS n FROM scanner_cursor"),
          { timeoutMs: 30_000 },
        )
      )[0]!.n,
    );
    const first = await poll(
      "the first successful order creation after the restart",
      async () => {
        const response = await createOrder("after-0", "2");
        if (response.status !== 201) return undefined;
        return (await response.json()) as { id: string; address: string };
      },
      { timeoutMs: 60_000, describe: outputs, intervalMs: 100 },
    );
    const firstOrderMs = performance.now() - upAt;
    await poll(
      "the scanner to apply a block after the restart",
      async () =>
        Number((await sql<{ n: string }>("SELECT max(block_number)::text AS n FROM scanner_cursor"))[0]?.n) >
          cursorAtRestart || undefined,
      { timeoutMs: 60_000, describe: outputs, intervalMs: 100 },
    );
    const firstBlockMs = performance.now() - upAt;
    const after: Paid[] = [
      { id: first.id, address: first.address, phase: "after", expected: 2_000_000n, paid: 0n },
    ];
    after.push(await newOrder("after", 1), await newOrder("after", 2));
    orders.push(...after);
    for (const order of after) await pay(order, order.expected);
    process.stdout.write(
      `db-restart: mid-payment states at the crash ${JSON.stringify(midState.map((o) => o.status))}; ` +
        `after the restart: first order created in ${Math.round(firstOrderMs)} ms, ` +
        `scanner's first block in ${Math.round(firstBlockMs)} ms\n`,
    );

    // Every order reaches its outcome and its webhook.
    const ids = orders.map((o) => o.id);
    await poll(
      "every order to complete",
      async () => (await orderStatus(ids)).every((o) => o.status === "completed") || undefined,
      { timeoutMs: 90_000, describe: async () => `${JSON.stringify(await orderStatus(ids))}\n${outputs()}` },
    );
    const rows = await sql<{ id: string; amount_received: string }>(
      "SELECT id::text, amount_received::text FROM orders WHERE id = ANY($1::uuid[])",
      [ids],
    );
    for (const order of orders) {
      expect(rows.find((r) => r.id === order.id)?.amount_received, order.phase).toBe(order.paid.toString());
    }
    const deliveries = await sql<{ order_id: string; event: string; status: string }>(
      "SELECT order_id::text, event, status FROM webhook_deliveries WHERE order_id = ANY($1::uuid[])",
      [ids],
    );
    const received = hook.requests.map((r) => ({
      key: String(r.headers["x-idempotency-key"]),
      body: JSON.parse(r.body.toString()) as { order_id: string; event: string; amount_received: string },
    }));
    for (const order of orders) {
      const event =
        order.paid === order.expected
          ? "payment.confirmed"
          : order.paid > order.expected
            ? "payment.overpaid"
            : "payment.underpaid";
      expect(deliveries.filter((d) => d.order_id === order.id)).toEqual([
        { order_id: order.id, event, status: "delivered" },
      ]);
      const mine = received.filter((r) => r.body.order_id === order.id);
      // One event per order; a repeat (same idempotency key) would be the at-least-once retry.
      expect(new Set(mine.map((r) => r.key)).size, `${order.phase} ${order.id}`).toBe(1);
      expect(mine[0]?.body).toMatchObject({ event, amount_received: (Number(order.paid) / 1e6).toFixed(6) });
    }

    // Each order swept exactly once, the cold wallet holds everything paid.
    await poll(
      "every sweep to complete",
      async () => {
        const s = await sql<{ status: string }>(
          "SELECT status FROM settlements WHERE order_id = ANY($1::uuid[])",
          [ids],
        );
        return s.length === orders.length && s.every((r) => r.status === "completed") ? true : undefined;
      },
      {
        timeoutMs: 90_000,
        describe: async () =>
          `${JSON.stringify(await sql("SELECT order_id, status, step, attempts, last_error, lease_owner FROM settlements"))}\n${outputs()}`,
      },
    );
    const settled = await sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM order_events WHERE event_type = 'sweep_completed' AND order_id = ANY($1::uuid[])",
      [ids],
    );
    expect(settled[0]?.n).toBe(orders.length);
    // The stray: recorded once, confirmed, and its address's own settlement swept it.
    await poll(
      "the stray's address to be swept",
      async () => {
        const [row] = await sql<{ status: string; step: string }>(
          "SELECT s.status, s.step FROM settlements s WHERE s.address = $1 AND s.order_id IS NULL",
          [spare.address],
        );
        return row?.status === "completed" ? true : undefined;
      },
      {
        timeoutMs: 90_000,
        describe: async () =>
          `${JSON.stringify(await sql("SELECT to_address, status, amount::text FROM stray_transfers"))} ${JSON.stringify(
            await sql("SELECT address, status, step, last_error FROM settlements WHERE order_id IS NULL"),
          )}\n${outputs()}`,
      },
    );
    expect(
      await sql("SELECT amount::text AS amount, status FROM stray_transfers WHERE to_address = $1", [
        spare.address,
      ]),
    ).toEqual([{ amount: "1500000", status: "confirmed" }]);
    expect(await transfersToCold(spare.address)).toEqual([1_500_000n]);
    const total = orders.reduce((sum, o) => sum + o.paid, 0n) + 1_500_000n;
    expect(await usdtBalance(devnet, cold)).toBe(total);

    const check = await run(process.execPath, ["--import", "tsx", "src/main.ts", "check-rollups"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", ...env({}) },
    }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
    expect((check as { code?: number }).code ?? 0, JSON.stringify(check)).toBe(0);

    // No process exited or crashed on an unhandled 'error' event, and leadership was taken again.
    for (const p of processes) {
      expect(p.alive(), outputs()).toBe(true);
      expect(p.output()).not.toMatch(
        /Unhandled 'error' event|uncaughtException|Connection terminated unexpectedly\n\s+at/,
      );
    }
    // Every loop that failed for the outage logged that it resumed (each backs off 4 s at most).
    let failedLoops = 0;
    for (const p of processes) {
      const lines = p
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg?: string; task?: string });
      const failed = new Set(
        lines.filter((l) => l.msg === "background task failed: database unavailable").map((l) => l.task),
      );
      const resumed = new Set(lines.filter((l) => l.msg === "background task resumed").map((l) => l.task));
      failedLoops += failed.size;
      for (const task of failed) expect(resumed.has(task), `${p.role}: ${task} never resumed`).toBe(true);
    }
    expect(failedLoops).toBeGreaterThan(0);
    const leadership = processes
      .filter((p) => p.role !== "api")
      .map((p) => (p.output().match(/scanner leadership acquired/g) ?? []).length)
      .reduce((a, b) => a + b, 0);
    expect(leadership, outputs()).toBeGreaterThanOrEqual(2);
  }, 240_000);
});
