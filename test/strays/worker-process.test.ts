/**
 * With real processes: a `stablegate serve --role api` and a
 * `stablegate serve --role worker` (the scanner, confirmer, sweeper, address releaser, webhook and
 * alert senders) on one PostgreSQL database (TEST_DATABASE_URL's per-file database, or else a
 * throwaway cluster of this test's own), the devnet over HTTP mining on its own, a real webhook
 * receiver and a real alert receiver. Everything is driven through the HTTP APIs:
 *
 * 1. An order is paid, completes (its webhook answered 200), is swept, and its address goes back to
 *    the pool after a short quarantine: the next order would take it (lowest free index).
 * 2. The payer pays the same address again. It is a stray: listed by the admin API, an incident, the
 *    `stray_transfer` alert reaches the alert receiver signed, and the address's own settlement
 *    sweeps exactly the stray's amount to the cold wallet (read from the chain's transfers).
 * 3. While it holds the balance the address is never handed to a new order.
 * 4. Attached to the order the payer meant, that order is confirmed at the stray's amount and its
 *    `payment.confirmed` webhook arrives, verified with the SDK's verifyWebhook.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@stablegate/sdk";
import { startDevnet, type Devnet } from "@stablegate/devnet";
import { evmHex } from "@stablegate/tron/address";
import { devnetEnv, TEST_ADMIN_PASSWORD, TEST_MNEMONIC, TEST_SECRETS } from "../helpers/config.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { createPgCluster, freePort, type PgCluster } from "../helpers/pg-cluster.js";
import { startServiceProcess, type ServiceProcess } from "../helpers/service-process.js";
import { poll } from "../helpers/poll.js";
import { startReceiver, type Receiver } from "../webhooks/fixtures.js";
import { fund, postStatus } from "../devnet/helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

const USDT = 1_000_000n;
const WEBHOOK_SECRET = "whsec_strays_worker_0123456789abcdef";
const ALERT_SECRET = "alert-secret-strays-0123456789";
const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/** Chain waits are generous: the machine running the suite is loaded. */
const WAIT_MS = 120_000;

let cluster: PgCluster | undefined;
let testDb: TestDatabase | undefined;
let dbUrl: string;
let devnet: Devnet;
let hook: Receiver;
let alerts: Receiver;
const processes: ServiceProcess[] = [];
let apiUrl: string;
let cold: string;
let cookie = "";
let apiKey = "";

const query = async <T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> => {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    return (await db.query(text, values)).rows as T[];
  } finally {
    await db.end();
  }
};

const outputs = () =>
  processes.map((p) => `--- ${p.role} (alive ${p.alive()}) ---\n${p.output().slice(-4000)}`).join("\n");

async function http<T = Record<string, unknown>>(
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  auth: Record<string, string> = { cookie },
): Promise<{ status: number; json: T }> {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: response.status, json: (await response.json()) as T };
}

async function newOrder(externalId: string, amount: string): Promise<{ id: string; address: string }> {
  const r = await http<{ id: string; address: string }>(
    "POST",
    "/api/v1/payments",
    { external_id: externalId, amount, currency: "USDT", callback_url: hook.url },
    { "x-api-key": apiKey },
  );
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json;
}

/** A USDT transfer from the devnet's faucet, mined by the devnet's own block timer. */
async function pay(to: string, units: bigint): Promise<void> {
  const r = await postStatus(devnet, "/devnet/fund", { address: to, usdt_units: units.toString() });
  if (r.status !== 200) throw new Error(`payment failed: ${r.text}`);
}

/** Every USDT Transfer on the chain from `from` to `to`: the amounts, read from each block. */
async function chainTransfers(from: string, to: string): Promise<bigint[]> {
  const head = (await (await fetch(`${devnet.url}/wallet/getnowblock`, { method: "POST" })).json()) as {
    block_header: { raw_data: { number: number } };
  };
  const fromTopic = evmHex(from).padStart(64, "0");
  const toTopic = evmHex(to).padStart(64, "0");
  const out: bigint[] = [];
  for (let n = 0; n <= head.block_header.raw_data.number; n++) {
    const res = await fetch(`${devnet.url}/wallet/gettransactioninfobyblocknum`, {
      method: "POST",
      body: JSON.stringify({ num: n }),
    });
    const infos = (await res.json()) as {
      receipt?: { result?: string };
      log?: { topics: string[]; data: string }[];
    }[];
    for (const info of Array.isArray(infos) ? infos : []) {
      if (info.receipt?.result !== "SUCCESS") continue;
      for (const log of info.log ?? []) {
        if (log.topics[0] === TRANSFER_TOPIC && log.topics[1] === fromTopic && log.topics[2] === toTopic) {
          out.push(BigInt(`0x${log.data}`));
        }
      }
    }
  }
  return out;
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
    DATA_DIR: mkdtempSync(join(tmpdir(), "sg-strays-worker-")),
    WALLET_MNEMONIC: TEST_MNEMONIC,
    SWEEP_ENABLED: "true",
    SWEEP_MIN_USDT: "1",
    COLD_WALLET_ADDRESS: cold,
    ADDRESS_QUARANTINE_SECONDS: "2",
    POOL_MIN_FREE: "3",
    ALERT_WEBHOOK_URL: alerts.url,
    ALERT_WEBHOOK_SECRET: ALERT_SECRET,
    ...extra,
  };
}

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) {
    testDb = await createTestDatabase({ poolSize: 2 });
    dbUrl = testDb.url as string;
  } else {
    // A database the processes can share: a throwaway PostgreSQL cluster (PGlite is one process).
    cluster = await createPgCluster({ databases: ["stablegate"] });
    dbUrl = cluster.url("stablegate");
  }
  devnet = await startDevnet({ blockTimeMs: 300, solidifyAfter: 2, quiet: true });
  hook = await startReceiver();
  alerts = await startReceiver();
  const hot = await TronWeb.createAccount();
  cold = (await TronWeb.createAccount()).address.base58;
  await fund(devnet, hot.address.base58, "5000");
  const [apiPort, workerPort] = [await freePort(), await freePort()];
  apiUrl = `http://127.0.0.1:${apiPort}`;
  processes.push(
    startServiceProcess("api", env({ PORT: String(apiPort), HOT_WALLET_ADDRESS: hot.address.base58 })),
  );
  await poll(
    "the api to answer",
    async () =>
      (await fetch(`${apiUrl}/api/v1/health/live`).catch(() => null))?.status === 200 ? true : undefined,
    { timeoutMs: 90_000, describe: outputs },
  );
  processes.push(
    startServiceProcess("worker", env({ PORT: String(workerPort), HOT_WALLET_PRIVATE_KEY: hot.privateKey })),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await hook?.close();
  await alerts?.close();
  await devnet?.close();
  await testDb?.drop();
  await cluster?.destroy();
}, 60_000);

describe("a stray transfer with a real worker process", () => {
  it("is recorded, alerted, listed, swept exactly once, keeps its address, and attaches to another order", async () => {
    const login = await fetch(`${apiUrl}/api/v1/admin/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
    });
    cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie, await login.text()).toMatch(/^admin_token=/);
    const merchant = await http<{ api_key: string }>("POST", "/api/v1/admin/merchants", {
      name: "Strays shop",
      webhook_secret: WEBHOOK_SECRET,
    });
    expect(merchant.status).toBe(201);
    apiKey = merchant.json.api_key;
    await poll(
      "the worker's scanner to start",
      async () => ((await query("SELECT 1 FROM scanner_cursor")).length > 0 ? true : undefined),
      { timeoutMs: 90_000, describe: outputs },
    );

    // 1. Paid, completed, swept, released.
    const first = await newOrder("first", "10");
    await pay(first.address, 10n * USDT);
    const addressState = async () =>
      (
        await query<{ status: string; order_id: string | null; derivation_index: string }>(
          "SELECT status, order_id::text, derivation_index::text FROM addresses WHERE address = $1",
          [first.address],
        )
      )[0];
    await poll(
      "the first order's address to return to the pool (completed, swept, quarantined)",
      async () => ((await addressState())?.status === "free" ? true : undefined),
      {
        timeoutMs: WAIT_MS + 90_000,
        // the releaser runs every 60 s
        describe: async () =>
          JSON.stringify({
            address: await addressState(),
            order: await query("SELECT status, updated_at FROM orders WHERE id = $1", [first.id]),
            settlements: await query("SELECT status, step, last_error FROM settlements"),
          }) + outputs(),
        intervalMs: 500,
      },
    );
    expect(await chainTransfers(first.address, cold)).toEqual([10n * USDT]);
    // The claim takes the lowest free index: the next order would get this address.
    const [lowest] = await query<{ address: string }>(
      "SELECT address FROM addresses WHERE status = 'free' ORDER BY derivation_index::bigint LIMIT 1",
    );
    expect(lowest?.address).toBe(first.address);

    // 2. Paid again, "to the same address as last time".
    await pay(first.address, 3n * USDT);
    type StrayList = {
      data: {
        id: string;
        tx_hash: string;
        address: string;
        amount: string;
        status: string;
        sweep: { status: string };
      }[];
    };
    const strays = async () => (await http<StrayList>("GET", "/api/v1/admin/stray-transfers")).json.data;
    await poll(
      "the scanner to record the stray",
      async () => ((await strays()).length === 1 ? true : undefined),
      {
        timeoutMs: WAIT_MS,
        describe: async () => JSON.stringify(await strays()) + outputs(),
        intervalMs: 300,
      },
    );
    // 3. Never handed to a new order while it holds the balance.
    const meanwhile = await newOrder("meanwhile", "1");
    expect(meanwhile.address).not.toBe(first.address);
    expect(await addressState()).toMatchObject({ status: "allocated", order_id: null });

    await poll(
      "the stray to be confirmed and swept from its address",
      async () => ((await strays())[0]?.sweep.status === "swept" ? true : undefined),
      {
        timeoutMs: WAIT_MS,
        describe: async () => JSON.stringify(await strays()) + outputs(),
        intervalMs: 500,
      },
    );
    const [stray] = await strays();
    expect(stray).toMatchObject({ address: first.address, amount: "3.000000", status: "confirmed" });
    // The cold wallet got exactly the stray's amount, once, from the stray's address.
    expect(await chainTransfers(first.address, cold)).toEqual([10n * USDT, 3n * USDT]);
    expect(await usdtBalance(devnet, first.address)).toBe(0n);
    expect(await usdtBalance(devnet, cold)).toBe(13n * USDT);
    const incidents = await http<{ stray_transfers: { tx_hash: string }[] }>(
      "GET",
      "/api/v1/admin/incidents",
    );
    expect(incidents.json.stray_transfers.map((s) => s.tx_hash)).toEqual([stray?.tx_hash]);

    // The operator alert, delivered to a real receiver and signed.
    const strayAlert = async () =>
      alerts.requests
        .map((r) => ({ r, body: JSON.parse(r.body.toString()) as { alert: string; text: string } }))
        .find((a) => a.body.alert === "stray_transfer");
    const alert = await poll("the stray_transfer alert", strayAlert, {
      timeoutMs: WAIT_MS,
      describe: () => JSON.stringify(alerts.requests.map((r) => r.body.toString())),
    });
    expect(alert.body.text).toContain(first.address);
    expect(alert.body.text).toContain("3.000000");
    expect(verifyWebhook(alert.r.body, alert.r.headers, ALERT_SECRET).ok).toBe(true);

    // 4. Attached to the order the payer meant.
    const meant = await newOrder("meant", "3");
    const attached = await http<{ order: { status: string; amount_received: string } }>(
      "POST",
      `/api/v1/admin/orders/${meant.id}/attach-transfer`,
      { tx_hash: stray?.tx_hash, reason: "paid order 'meant' to last week's address" },
    );
    expect(attached.status, JSON.stringify(attached.json)).toBe(200);
    expect(attached.json.order).toMatchObject({ status: "confirmed", amount_received: "3.000000" });
    const confirmedHook = async () =>
      hook.requests
        .map((r) => ({ r, verified: verifyWebhook(r.body, r.headers, WEBHOOK_SECRET) }))
        .find((h) => h.verified.ok && h.verified.payload.order_id === meant.id);
    const delivered = await poll("the attached order's webhook", confirmedHook, {
      timeoutMs: WAIT_MS,
      describe: () => JSON.stringify(hook.requests.map((r) => r.body.toString())),
    });
    expect(delivered.verified.ok && delivered.verified.payload).toMatchObject({
      event: "payment.confirmed",
      order_id: meant.id,
      status: "confirmed",
      amount_received: "3.000000",
      tx_hash: stray?.tx_hash,
    });
    await poll(
      "the attached order to complete",
      async () =>
        (await query<{ status: string }>("SELECT status FROM orders WHERE id = $1", [meant.id]))[0]
          ?.status === "completed"
          ? true
          : undefined,
      { timeoutMs: WAIT_MS, describe: outputs },
    );
    // Nothing more reached the cold wallet: the stray was swept once, from its own address.
    expect(await chainTransfers(first.address, cold)).toEqual([10n * USDT, 3n * USDT]);
    expect(await usdtBalance(devnet, cold)).toBe(13n * USDT);
    for (const p of processes) expect(p.alive(), outputs()).toBe(true);
  }, 600_000);
});
