/**
 * The full path of a refund and a payout with real processes:
 * real `stablegate serve` processes (on PostgreSQL, TEST_DATABASE_URL: an `--role api` and an
 * `--role worker` process on one database; on PGlite, which one process owns, a single
 * `--role all`), the devnet over HTTP with real blocks on a timer, and a real node:http webhook
 * receiver verifying signatures with the SDK's handler. Everything goes through HTTP:
 *  - the owner creates a merchant and three operators; two approvers enrol TOTP;
 *  - a payment of 50 USDT, paid on chain, credits the merchant's balance;
 *  - the merchant creates a payout through the SDK; a support operator creates a refund of the
 *    order; each is approved by another operator with a fresh TOTP code;
 *  - the worker sends both from the hot wallet; they complete once solidified; each recipient's
 *    on-chain USDT balance rises by exactly the amount;
 *  - payout.completed and refund.completed arrive signed and verified;
 *  - `stablegate check-ledger`, run as a process, exits 0.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type Devnet } from "@stablegate/devnet";
import {
  createClient,
  createNodeWebhookHandler,
  type StablegateClient,
  type WebhookDelivery,
  type WebhookEvent,
} from "@stablegate/sdk";
import { devnetEnv, TEST_ADMIN_PASSWORD, TEST_MNEMONIC, TEST_SECRETS } from "../helpers/config.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { freePort } from "../helpers/pg-cluster.js";
import { OPERATOR_PASSWORD, totpAt } from "../helpers/operators.js";
import { poll } from "../helpers/poll.js";
import { startServiceProcess, type ServiceProcess } from "../helpers/service-process.js";
import { fund, postStatus } from "../devnet/helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const WEBHOOK_SECRET = "whsec-full-path";
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

let devnet: Devnet;
let testDb: TestDatabase | undefined;
let dataDir: string;
let apiUrl: string;
let receiver: Server;
let receiverUrl: string;
const processes: ServiceProcess[] = [];
const received: { event: WebhookEvent; delivery: WebhookDelivery }[] = [];
let baseEnv: Record<string, string>;

const outputs = () =>
  processes.map((p) => `--- ${p.role} (alive ${p.alive()}) ---\n${p.output().slice(-4000)}`).join("\n");

async function http(
  method: string,
  path: string,
  options: { cookie?: string; body?: unknown; apiKey?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; cookie: string | undefined }> {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.apiKey ? { "x-api-key": options.apiKey } : {}),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  const setCookie = response.headers.get("set-cookie")?.split(";")[0];
  return { status: response.status, body: text ? JSON.parse(text) : {}, cookie: setCookie };
}

async function login(payload: Record<string, unknown>): Promise<string> {
  const reply = await http("POST", "/api/v1/admin/auth/login", { body: payload });
  if (reply.status !== 200 || !reply.cookie)
    throw new Error(`login: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.cookie;
}

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 300, solidifyAfter: 2, quiet: true });
  if (onPostgres) testDb = await createTestDatabase({ poolSize: 2 });
  dataDir = mkdtempSync(join(tmpdir(), "sg-payout-full-"));
  const hot = await TronWeb.createAccount();
  await fund(devnet, hot.address.base58, "2000", "1000");

  const handler = createNodeWebhookHandler({
    secret: WEBHOOK_SECRET,
    onEvent: (event, delivery) => {
      received.push({ event, delivery });
    },
  });
  receiver = createServer((req, res) => void handler(req, res));
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  baseEnv = {
    NODE_ENV: "development",
    LOG_LEVEL: "warn",
    ...TEST_SECRETS,
    ...devnetEnv(devnet),
    CONFIRMATIONS: "3",
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    WALLET_MNEMONIC: TEST_MNEMONIC,
    HOT_WALLET_PRIVATE_KEY: hot.privateKey,
    COLD_WALLET_ADDRESS: (await TronWeb.createAccount()).address.base58,
    SWEEP_ENABLED: "false",
    ...(testDb?.url ? { DATABASE_URL: testDb.url } : {}),
  };
  const apiPort = await freePort();
  apiUrl = `http://127.0.0.1:${apiPort}`;
  if (onPostgres) {
    processes.push(startServiceProcess("api", { ...baseEnv, PORT: String(apiPort) }));
    processes.push(startServiceProcess("worker", { ...baseEnv, PORT: String(await freePort()) }));
  } else {
    processes.push(startServiceProcess("all", { ...baseEnv, PORT: String(apiPort) }));
  }
  await poll(
    "the service to answer health",
    async () => ((await fetch(`${apiUrl}/api/v1/health/live`)).status === 200 ? true : undefined),
    { timeoutMs: 120_000, describe: outputs },
  );
}, 240_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  receiver?.closeAllConnections();
  await new Promise<void>((done) => (receiver ? receiver.close(() => done()) : done()));
  await devnet?.close();
  await testDb?.drop();
}, 60_000);

describe("a merchant-API payout and an operator refund, with real processes and the devnet", () => {
  it("are approved with TOTP by a second operator, sent, solidified, paid exactly, reported, and the ledger checks", async () => {
    const owner = await login({ password: TEST_ADMIN_PASSWORD });
    const merchant = await http("POST", "/api/v1/admin/merchants", {
      cookie: owner,
      body: { name: "Full Path Shop", webhook_secret: WEBHOOK_SECRET },
    });
    expect(merchant.status, JSON.stringify(merchant.body)).toBe(201);
    const apiKey = merchant.body.api_key as string;
    const client: StablegateClient = createClient({ baseUrl: apiUrl, apiKey, baseDelayMs: 50 });

    const operators: Record<string, { cookie: string; secret?: string }> = {};
    for (const [email, role] of [
      ["support@example.com", "support"],
      ["approver-a@example.com", "admin"],
      ["approver-b@example.com", "admin"],
    ] as const) {
      const created = await http("POST", "/api/v1/admin/operators", {
        cookie: owner,
        body: { name: email, email, role, password: OPERATOR_PASSWORD },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      operators[email] = { cookie: await login({ email, password: OPERATOR_PASSWORD }) };
    }
    for (const email of ["approver-a@example.com", "approver-b@example.com"]) {
      const op = operators[email] as { cookie: string; secret?: string };
      const setup = await http("POST", "/api/v1/admin/me/totp/setup", {
        cookie: op.cookie,
        body: { current_password: OPERATOR_PASSWORD },
      });
      expect(setup.status).toBe(200);
      op.secret = setup.body.secret as string;
      const confirm = await http("POST", "/api/v1/admin/me/totp/confirm", {
        cookie: op.cookie,
        body: { totp_code: totpAt(op.secret, new Date()) },
      });
      expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
    }

    // The merchant's balance: a real payment of 50 USDT.
    const order = await client.createPayment({
      external_id: "full-path-order",
      amount: "50",
      currency: "USDT",
      callback_url: receiverUrl,
    });
    const paid = await postStatus(devnet, "/devnet/fund", { address: order.address, usdt: "50" });
    expect(paid.status, paid.text).toBe(200);
    await poll(
      "the order to be confirmed",
      async () => {
        const o = await client.getPayment(order.id);
        return o.status === "confirmed" || o.status === "completed" ? o : undefined;
      },
      {
        timeoutMs: 120_000,
        describe: async () => `${JSON.stringify(await client.getPayment(order.id))}\n${outputs()}`,
      },
    );

    const payoutTo = (await TronWeb.createAccount()).address.base58 as string;
    const refundTo = (await TronWeb.createAccount()).address.base58 as string;
    const payout = await client.createPayout({
      external_id: "full-path-payout-1",
      amount: "12.5",
      address: payoutTo,
      callback_url: receiverUrl,
    });
    expect(payout.status).toBe("pending_approval");
    const refund = await http("POST", `/api/v1/admin/orders/${order.id}/refunds`, {
      cookie: operators["support@example.com"]?.cookie,
      body: { amount: "7.25", address: refundTo, reason: "overcharged", callback_url: receiverUrl },
    });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    const refundId = refund.body.id as string;

    // Each approved by a second operator with a fresh code (the next time step: the enrolment
    // spent the current one).
    const approvals: [string, string][] = [
      [payout.id, "approver-a@example.com"],
      [refundId, "approver-b@example.com"],
    ];
    for (const [id, email] of approvals) {
      const op = operators[email] as { cookie: string; secret: string };
      const without = await http("POST", `/api/v1/admin/payouts/${id}/approve`, {
        cookie: op.cookie,
        body: {},
      });
      expect(without.body.code).toBe("TOTP_REQUIRED");
      const ok = await http("POST", `/api/v1/admin/payouts/${id}/approve`, {
        cookie: op.cookie,
        body: { totp_code: totpAt(op.secret, new Date(Date.now() + 30_000)) },
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.status).toBe("approved");
    }

    const [donePayout, doneRefund] = await poll(
      "the payout and the refund to complete",
      async () => {
        const [a, b] = await Promise.all([client.getPayout(payout.id), client.getPayout(refundId)]);
        if (a.status === "failed" || b.status === "failed")
          throw new Error(`failed: ${a.last_error} ${b.last_error}`);
        return a.status === "completed" && b.status === "completed" ? ([a, b] as const) : undefined;
      },
      {
        timeoutMs: 180_000,
        describe: async () =>
          `${JSON.stringify([await client.getPayout(payout.id), await client.getPayout(refundId)])}\n${outputs()}`,
      },
    );
    expect(donePayout.tx_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(doneRefund.tx_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await usdtBalance(devnet, payoutTo)).toBe(12_500_000n);
    expect(await usdtBalance(devnet, refundTo)).toBe(7_250_000n);

    const events = await poll(
      "payout.completed and refund.completed at the receiver",
      async () => {
        const names = received.map((r) => r.event.event);
        return names.includes("payout.completed") && names.includes("refund.completed")
          ? received
          : undefined;
      },
      {
        timeoutMs: 120_000,
        describe: async () => `received: ${JSON.stringify(received.map((r) => r.event.event))}\n${outputs()}`,
      },
    );
    const payoutEvent = events.find((r) => r.event.event === "payout.completed");
    const refundEvent = events.find((r) => r.event.event === "refund.completed");
    expect(payoutEvent?.event).toMatchObject({
      payout_id: payout.id,
      external_id: "full-path-payout-1",
      amount: "12.500000",
      address: payoutTo,
      tx_hash: donePayout.tx_hash,
    });
    expect(refundEvent?.event).toMatchObject({
      payout_id: refundId,
      order_id: order.id,
      amount: "7.250000",
      address: refundTo,
      tx_hash: doneRefund.tx_hash,
    });
    // Signed: the SDK's handler verified X-Signature over the raw body before recording them.
    expect(payoutEvent?.delivery.headers["x-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(payoutEvent?.delivery.idempotencyKey).toMatch(
      new RegExp(`^evt_${payout.id}_payout\\.completed_\\d+$`),
    );
    expect(refundEvent?.delivery.idempotencyKey).toMatch(
      new RegExp(`^evt_${refundId}_refund\\.completed_\\d+$`),
    );

    const me = await http("GET", "/api/v1/merchant/me", { apiKey });
    expect(me.body.balance).toEqual({ available: "30.250000", reserved: "0.000000" });

    // check-ledger as a process (PGlite: once the service that owns the data directory stopped).
    if (!onPostgres) await Promise.all(processes.map((p) => p.stop()));
    const { stdout } = await run(process.execPath, ["--import", "tsx", "src/main.ts", "check-ledger"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...baseEnv },
      timeout: 120_000,
    });
    expect(stdout).toMatch(/ledger differences: 0 /);
  }, 600_000);
});
