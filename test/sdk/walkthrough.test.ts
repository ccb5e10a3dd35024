/**
 * docs/sdk.md step by step, against the service as `npm start` runs it: startService with role
 * "all" and the embedded devnet (real blocks on a timer, the real scanner, confirmer and webhook
 * sender), reached over HTTP only. A merchant created through the admin API, a payment created
 * with the SDK, paid by the sandbox route with a real signed transfer, and the outcome webhook
 * received by a real node:http server through the SDK's handler: verified, typed, and deduped
 * when the operator re-sends it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { startService, type RunningService } from "../../src/server.js";
import {
  createClient,
  createNodeWebhookHandler,
  MemoryDedupeStore,
  type WebhookDelivery,
  type WebhookEvent,
} from "@stablegate/sdk";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { closedPort } from "./helpers.js";
import { poll } from "../helpers/poll.js";

const WEBHOOK_SECRET = "demo-webhook-secret";
const ROOT = resolve(import.meta.dirname, "../..");

let service: RunningService;
let testDb: TestDatabase | undefined;
let baseUrl: string;
let receiver: Server;
let receiverUrl: string;
const received: { event: WebhookEvent; delivery: WebhookDelivery }[] = [];
let requestsToReceiver = 0;

beforeAll(async () => {
  // On PostgreSQL (TEST_DATABASE_URL) a fresh database of its own; otherwise PGlite in DATA_DIR,
  // exactly what `npm start` uses.
  if (process.env.TEST_DATABASE_URL) testDb = await createTestDatabase({ poolSize: 2 });
  const port = await closedPort();
  const env: Record<string, string> = {
    NODE_ENV: "development",
    DATA_DIR: mkdtempSync(join(tmpdir(), "stablegate-sdk-walkthrough-")),
    PORT: String(port),
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    LOG_LEVEL: "silent",
    // What docs/sdk.md suggests for a quick loop: `CONFIRMATIONS=3 npm start`; faster blocks here.
    CONFIRMATIONS: "3",
    DEVNET_BLOCK_TIME_MS: "250",
    ...(testDb?.url ? { DATABASE_URL: testDb.url } : {}),
  };
  service = await startService(loadConfig(env), "all", { env });
  baseUrl = `http://127.0.0.1:${port}`;

  // Step 3 of the walkthrough: the merchant's receiver, plain node:http and the SDK's handler.
  const handler = createNodeWebhookHandler({
    secret: WEBHOOK_SECRET,
    store: new MemoryDedupeStore(),
    onEvent: (event, delivery) => {
      received.push({ event, delivery });
    },
  });
  receiver = createServer((req, res) => {
    if (req.url !== "/stablegate/webhook") return void res.writeHead(404).end();
    requestsToReceiver++;
    void handler(req, res);
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/stablegate/webhook`;
}, 180_000);

afterAll(async () => {
  await new Promise((done) => receiver?.close(done));
  await service?.stop();
  await testDb?.drop().catch(() => undefined);
}, 60_000);

/** Step 1 of the walkthrough: the operator logs in and creates the merchant (curl in the doc). */
async function createMerchant(name = "Demo Shop"): Promise<{ apiKey: string; cookie: string }> {
  const login = await fetch(`${baseUrl}/api/v1/admin/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
  });
  expect(login.status).toBe(200);
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const created = await fetch(`${baseUrl}/api/v1/admin/merchants`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ name, webhook_secret: WEBHOOK_SECRET }),
  });
  expect(created.status).toBe(201);
  const { api_key } = (await created.json()) as { api_key: string };
  return { apiKey: api_key, cookie };
}

describe("docs/sdk.md against the running service", () => {
  it("create → simulate → verified typed webhook → completed; an operator's re-send is deduped", async () => {
    const { apiKey, cookie } = await createMerchant();

    // Step 2: the client, a payment.
    const stablegate = createClient({ baseUrl, apiKey });
    const order = await stablegate.createPayment({
      external_id: "order-1001",
      amount: "25.5",
      currency: "USDT",
      callback_url: receiverUrl,
    });
    expect(order).toMatchObject({ status: "pending", amount_expected: "25.500000", network: "devnet" });

    // Step 4: pay it from the devnet faucet (a real signed USDT transfer).
    const paid = await stablegate.simulatePayment(order.id);
    expect(paid).toMatchObject({ order_id: order.id, amount: "25.500000", to_address: order.address });
    expect(paid.tx_hash).toMatch(/^[0-9a-f]{64}$/);

    // Step 5: the webhook arrives, verified and typed.
    const { event, delivery } = await poll("the webhook", () => received[0], { timeoutMs: 90_000 });
    expect(event.event).toBe("payment.confirmed");
    if (event.event !== "payment.confirmed") throw new Error("narrowing");
    expect(event).toMatchObject({
      order_id: order.id,
      external_id: "order-1001",
      amount_expected: "25.500000",
      amount_received: "25.500000",
      currency: "USDT",
      network: "devnet",
      tx_hash: paid.tx_hash,
      from_address: paid.from_address,
      to_address: order.address,
      status: "confirmed",
    });
    expect(delivery.idempotencyKey).toBe(`evt_${order.id}_payment.confirmed_${Date.parse(event.timestamp)}`);

    // The 200 of our handler completes the order.
    const completed = await poll(
      "the order to complete",
      async () => {
        const read = await stablegate.getPayment(order.id);
        return read.status === "completed" ? read : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(completed.events.map((e) => e.event_type)).toEqual(
      expect.arrayContaining(["order_created", "payment_detected", "payment_confirmed"]),
    );

    // The operator re-sends the webhook: same idempotency key, same body. The handler answers 200
    // and does not run again.
    const retry = await fetch(`${baseUrl}/api/v1/admin/orders/${order.id}/retry-webhook`, {
      method: "POST",
      headers: { cookie },
    });
    expect(retry.status).toBe(200);
    const runs = await poll(
      "the re-sent run to be delivered",
      async () => {
        const detail = await fetch(`${baseUrl}/api/v1/admin/orders/${order.id}`, { headers: { cookie } });
        const { webhooks } = (await detail.json()) as {
          webhooks: { idempotency_key: string; status: string; last_status_code: number | null }[];
        };
        return webhooks.length === 2 && webhooks.every((w) => w.status === "delivered")
          ? webhooks
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(runs.map((w) => [w.idempotency_key, w.last_status_code])).toEqual([
      [delivery.idempotencyKey, 200],
      [delivery.idempotencyKey, 200],
    ]);
    expect(requestsToReceiver).toBe(2);
    expect(received).toHaveLength(1);

    // Listing finds it; an unknown order is a typed NOT_FOUND.
    const listed = [];
    for await (const payment of stablegate.listPayments({ status: "completed" })) listed.push(payment.id);
    expect(listed).toEqual([order.id]);
    await expect(stablegate.getPayment("0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15")).rejects.toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
  }, 180_000);

  it("the shop.mjs of step 3, run as printed, gets its payment confirmed and completed", async () => {
    const { apiKey } = await createMerchant("Script Shop");
    const doc = readFileSync(resolve(ROOT, "docs/sdk.md"), "utf8");
    const script = /```js\n(\/\/ shop\.mjs\n[\s\S]*?)```/.exec(doc)?.[1];
    expect(script, "docs/sdk.md has the shop.mjs block").toBeDefined();
    // The one change: the package import points at the source (no build needed in the test).
    const file = join(mkdtempSync(join(tmpdir(), "stablegate-shop-")), "shop.mjs");
    writeFileSync(
      file,
      script!.replace('"@stablegate/sdk"', JSON.stringify(resolve(ROOT, "packages/sdk/src/index.ts"))),
    );
    const child = spawn(process.execPath, ["--import", "tsx", file], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        STABLEGATE_URL: baseUrl,
        STABLEGATE_API_KEY: apiKey,
        PORT: String(await closedPort()),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.once("exit", done));
    expect(code, output).toBe(0);
    expect(output).toMatch(/^created [0-9a-f-]{36}: 25\.500000 USDT to T\w{33}$/m);
    expect(output).toMatch(/^sent 25\.500000 USDT in [0-9a-f]{64}$/m);
    expect(output).toMatch(/^paid: order-\d+ received 25\.500000 USDT \(tx [0-9a-f]{64}\)$/m);
    expect(output).toMatch(
      /^webhook evt_[0-9a-f-]{36}_payment\.confirmed_\d+ verified: payment\.confirmed$/m,
    );
    expect(output).toMatch(/^order order-\d+ is completed$/m);
  }, 120_000);

  it("the topup.mjs of step 4, run as printed, credits two deposits from verified webhooks", async () => {
    const { apiKey } = await createMerchant("Top-up Shop");
    const doc = readFileSync(resolve(ROOT, "docs/sdk.md"), "utf8");
    const script = /```js\n(\/\/ topup\.mjs\n[\s\S]*?)```/.exec(doc)?.[1];
    expect(script, "docs/sdk.md has the topup.mjs block").toBeDefined();
    const file = join(mkdtempSync(join(tmpdir(), "stablegate-topup-")), "topup.mjs");
    writeFileSync(
      file,
      script!.replace('"@stablegate/sdk"', JSON.stringify(resolve(ROOT, "packages/sdk/src/index.ts"))),
    );
    const child = spawn(process.execPath, ["--import", "tsx", file], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        STABLEGATE_URL: baseUrl,
        STABLEGATE_API_KEY: apiKey,
        PORT: String(await closedPort()),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.once("exit", done));
    expect(code, output).toBe(0);
    expect(output).toMatch(/^player-\d+ deposits to T\w{33} \(same again: true\)$/m);
    expect(output).toMatch(/^sent 10\.000000 USDT in [0-9a-f]{64}$/m);
    expect(output).toMatch(/^sent 0\.500000 USDT in [0-9a-f]{64}$/m);
    expect(output).toMatch(
      /^credited 10\.000000 USDT to player-\d+: evt_[0-9a-f-]{36}_deposit\.confirmed_\d+$/m,
    );
    expect(output).toMatch(
      /^credited 0\.500000 USDT to player-\d+ \(below the minimum\): evt_[0-9a-f-]{36}_deposit\.confirmed_\d+$/m,
    );
    expect(output).toMatch(/^balance of player-\d+: 10\.500000 USDT$/m);
    expect(output).toMatch(/^2 confirmed deposits listed$/m);
  }, 120_000);
});
