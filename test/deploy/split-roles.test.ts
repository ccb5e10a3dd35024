/**
 * Roles that tell the truth (DESIGN.md 2): a real `serve --role api` process holding only
 * WALLET_XPUB, HOT_WALLET_ADDRESS and COLD_WALLET_ADDRESS, and a real `serve --role worker` process
 * holding the mnemonic and the hot key, on one PostgreSQL and one devnet. The api reports sweeping,
 * shows the hot wallet and its live balance, and accepts retry-sweep; the worker sweeps. Workers
 * with a key of another wallet, or without the mnemonic, refuse to start naming the variables.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TronWeb } from "tronweb";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type Devnet } from "@stablegate/devnet";
import { mnemonicToAccountXpub } from "@stablegate/tron/hd";
import { devnetEnv, TEST_ADMIN_PASSWORD, TEST_MNEMONIC, TEST_SECRETS } from "../helpers/config.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { fund } from "../devnet/helpers.js";
import { createOrder } from "../../src/payments/create-order.js";
import { settlements } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp } from "../helpers/app.js";
import { poll } from "../helpers/poll.js";
import { usdtBalance } from "../helpers/usdt.js";
import { addMerchant } from "../payments/helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function serve(role: string, env: Record<string, string>): Started {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "serve", "--role", role], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  return { child, output: () => output, exited };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("a keyless api on this engine (in-process)", () => {
  it("reports sweeping, shows the hot wallet address and accepts retry-sweep without any key", async () => {
    const hotAddress = addressFromPrivateKey("33".repeat(32));
    const t = await createTestApp({
      env: {
        WALLET_MNEMONIC: undefined as unknown as string,
        WALLET_XPUB: mnemonicToAccountXpub(TEST_MNEMONIC),
        HOT_WALLET_ADDRESS: hotAddress,
        COLD_WALLET_ADDRESS: addressFromPrivateKey("44".repeat(32)),
        SWEEP_ENABLED: "true",
      },
    });
    try {
      expect(t.ctx.config.walletMnemonic).toBeUndefined();
      expect(t.ctx.config.hotWalletPrivateKey).toBeUndefined();
      const cookie = await adminCookie(t.app);
      const wallet = await t.app.inject({ method: "GET", url: "/api/v1/admin/wallet", headers: { cookie } });
      expect(wallet.json()).toMatchObject({
        hot_wallet: { address: hotAddress, balance_error: "TRON node unreachable" },
        system: { sweep_enabled: true, sweep_mode: "burn" },
      });
      const merchant = await addMerchant(t.ctx);
      const { order } = await createOrder(t.ctx, merchant, {
        externalId: "keyless-1",
        amount: "5",
        currency: "USDT",
        callbackUrl: "https://merchant.example.com/hook",
      });
      const now = t.clock.now();
      await t.ctx.db.insert(settlements).values({
        id: newId(),
        orderId: order.id,
        address: order.address,
        status: "failed",
        step: "fund",
        attempts: 5,
        createdAt: now,
        updatedAt: now,
      });
      const detail = await t.app.inject({
        method: "GET",
        url: `/api/v1/admin/orders/${order.id}`,
        headers: { cookie },
      });
      expect(detail.json().meta).toMatchObject({ sweep_enabled: true });
      const retry = await t.app.inject({
        method: "POST",
        url: `/api/v1/admin/orders/${order.id}/retry-sweep`,
        headers: { cookie },
      });
      expect(retry.statusCode).toBe(200);
      const again = await t.app.inject({
        method: "GET",
        url: `/api/v1/admin/orders/${order.id}`,
        headers: { cookie },
      });
      expect(again.json().settlement).toMatchObject({ status: "waiting" });
    } finally {
      await t.close();
    }
  }, 60_000);
});

if (process.env.TEST_DATABASE_URL) {
  describe("api without keys and worker with keys on one PostgreSQL", () => {
    let devnet: Devnet;
    let testDb: TestDatabase;
    const started: Started[] = [];
    let apiUrl: string;
    let cookie: string;
    let hot: { privateKey: string; address: string };
    let cold: string;
    let shared: Record<string, string>;

    const apiEnv = () => ({
      ...shared,
      WALLET_XPUB: mnemonicToAccountXpub(TEST_MNEMONIC),
      HOT_WALLET_ADDRESS: hot.address,
    });
    const workerEnv = () => ({
      ...shared,
      WALLET_MNEMONIC: TEST_MNEMONIC,
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      HOT_WALLET_ADDRESS: hot.address,
      // A worker listens too (metrics and health): on a port of its own.
      PORT: "0",
    });

    const sql = async (text: string, values: unknown[] = []): Promise<unknown[]> => {
      const db = new pg.Client({ connectionString: testDb.url });
      await db.connect();
      try {
        return (await db.query(text, values)).rows;
      } finally {
        await db.end();
      }
    };

    const api = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${apiUrl}${path}`, {
        ...init,
        headers: { "content-type": "application/json", cookie, ...(init.headers ?? {}) },
      });
      // A JSON reply read field by field; the schemas themselves are tested elsewhere.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };

    beforeAll(async () => {
      devnet = await startDevnet({ blockTimeMs: 300, solidifyAfter: 2, quiet: true });
      testDb = await createTestDatabase();
      const hotAccount = await TronWeb.createAccount();
      hot = { privateKey: hotAccount.privateKey, address: hotAccount.address.base58 };
      cold = (await TronWeb.createAccount()).address.base58;
      await fund(devnet, hot.address, "500");
      const port = await freePort();
      apiUrl = `http://127.0.0.1:${port}`;
      shared = {
        NODE_ENV: "development",
        LOG_LEVEL: "warn",
        DATABASE_URL: testDb.url as string,
        ...TEST_SECRETS,
        ...devnetEnv(devnet),
        CONFIRMATIONS: "2",
        COLD_WALLET_ADDRESS: cold,
        SWEEP_ENABLED: "true",
        PORT: String(port),
        HOST: "127.0.0.1",
      };
      const apiProcess = serve("api", { ...apiEnv(), DATA_DIR: mkdtempSync(join(tmpdir(), "sg-api-")) });
      started.push(apiProcess);
      await poll(
        "the api to listen",
        async () => ((await fetch(`${apiUrl}/api/v1/health/live`)).ok ? true : undefined),
        { timeoutMs: 60_000, describe: () => apiProcess.output() },
      );
      const login = await fetch(`${apiUrl}/api/v1/admin/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
      });
      cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      expect(cookie).toMatch(/^admin_token=/);
    }, 120_000);

    afterAll(async () => {
      for (const process of started) {
        if (process.child.exitCode === null) process.child.kill("SIGTERM");
        await process.exited;
      }
      await devnet?.close();
      await testDb?.drop();
    });

    it("a worker whose key belongs to another wallet refuses to start, naming both variables", async () => {
      const other = await TronWeb.createAccount();
      const worker = serve("worker", {
        ...workerEnv(),
        HOT_WALLET_PRIVATE_KEY: other.privateKey,
        DATA_DIR: mkdtempSync(join(tmpdir(), "sg-worker-")),
      });
      started.push(worker);
      expect(await worker.exited).not.toBe(0);
      expect(worker.output()).toContain("configuration error: HOT_WALLET_ADDRESS");
      expect(worker.output()).toContain("HOT_WALLET_PRIVATE_KEY");
      expect(worker.output()).toContain(other.address.base58);
      expect(worker.output()).not.toContain(other.privateKey);
    }, 60_000);

    it("a worker without the mnemonic refuses to start while SWEEP_ENABLED is true", async () => {
      const { WALLET_MNEMONIC: _dropped, ...env } = workerEnv();
      const worker = serve("worker", {
        ...env,
        WALLET_XPUB: mnemonicToAccountXpub(TEST_MNEMONIC),
        DATA_DIR: mkdtempSync(join(tmpdir(), "sg-worker-")),
      });
      started.push(worker);
      expect(await worker.exited).not.toBe(0);
      expect(worker.output()).toContain("configuration error: WALLET_MNEMONIC");
    }, 60_000);

    it("the keyless api reports sweeping and shows the hot wallet with its live balance", async () => {
      const wallet = await api("/api/v1/admin/wallet");
      expect(wallet.status).toBe(200);
      expect(wallet.body.system).toMatchObject({ sweep_enabled: true, sweep_mode: "burn" });
      expect(wallet.body.hot_wallet).toMatchObject({ address: hot.address, trx_balance: "500.000000" });
      expect(wallet.body.hot_wallet.balance_error).toBeUndefined();
      // The cold wallet's USDT is read live from the node too (nothing was swept to it here).
      expect(wallet.body.cold_wallet).toEqual({ address: cold, usdt_balance: "0.000000" });
    });

    it("orders created on the api are swept by the worker, and retry-sweep on the api is obeyed", async () => {
      const merchant = await api("/api/v1/admin/merchants", {
        method: "POST",
        body: JSON.stringify({
          name: "Split roles shop",
          webhook_secret: "whsec_split_roles_0123456789abcdef",
        }),
      });
      expect(merchant.status).toBe(201);
      const created = await fetch(`${apiUrl}/api/v1/payments`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": merchant.body.api_key as string },
        body: JSON.stringify({
          external_id: "split-1",
          amount: "5",
          currency: "USDT",
          callback_url: "http://127.0.0.1:9/hook",
        }),
      });
      expect(created.status).toBe(201);
      const order = (await created.json()) as { id: string; address: string };

      const detail = await api(`/api/v1/admin/orders/${order.id}`);
      expect(detail.body.meta).toMatchObject({ sweep_enabled: true, sweep_mode: "burn" });

      const worker = serve("worker", { ...workerEnv(), DATA_DIR: mkdtempSync(join(tmpdir(), "sg-worker-")) });
      started.push(worker);
      // The scanner starts at the head it first sees: pay only once it has a cursor.
      await poll(
        "the worker's scanner to start",
        async () => ((await sql("SELECT 1 FROM scanner_cursor")).length > 0 ? true : undefined),
        { timeoutMs: 60_000, describe: () => worker.output() },
      );
      await fund(devnet, order.address, "0", "5");

      const swept = await poll(
        "the worker to sweep",
        async () => {
          const { body } = await api(`/api/v1/admin/orders/${order.id}`);
          return body.settlement?.status === "completed" ? body : undefined;
        },
        { timeoutMs: 120_000, describe: () => worker.output() },
      );
      expect(swept.settlement.sweep_tx_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(await usdtBalance(devnet, cold)).toBe(5_000_000n);
      // The hot wallet paid the fees: the api shows the lower live balance.
      const after = await poll(
        "the balance cache to expire",
        async () => {
          const { body } = await api("/api/v1/admin/wallet");
          return body.hot_wallet.trx_balance !== "500.000000" ? body : undefined;
        },
        { timeoutMs: 30_000 },
      );
      expect(Number(after.hot_wallet.trx_balance)).toBeLessThan(500);

      // A sweep that failed (forced here on the settlement row) is retried through the keyless api
      // and settled by the worker.
      await sql("UPDATE settlements SET status = 'failed', last_error = 'forced' WHERE order_id = $1", [
        order.id,
      ]);
      const retry = await api(`/api/v1/admin/orders/${order.id}/retry-sweep`, { method: "POST" });
      expect(retry.status).toBe(200);
      await poll(
        "the worker to settle the retried sweep",
        async () => {
          const { body } = await api(`/api/v1/admin/orders/${order.id}`);
          return body.settlement?.status === "completed" ? true : undefined;
        },
        { timeoutMs: 60_000 },
      );
      const events = (await api(`/api/v1/admin/orders/${order.id}`)).body.events as { event_type: string }[];
      expect(events.map((event) => event.event_type)).toContain("sweep_retry_requested");
    }, 240_000);
  });
}
