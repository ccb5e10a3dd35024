/**
 * One webhook worker process for bench/webhooks.ts: the production sender loop (default
 * concurrency, poll interval and timeout) against BENCH_WORKER_DATABASE_URL. Prints "ready";
 * SIGTERM stops it gracefully.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { createLogger } from "../src/logger.js";
import { startWebhookSender, type WebhookSenderOptions } from "../src/workers/webhook-sender.js";

const config = loadConfig({
  NODE_ENV: "development",
  DATA_DIR: mkdtempSync(join(tmpdir(), "stablegate-bench-worker-")),
  DATABASE_URL: process.env.BENCH_WORKER_DATABASE_URL,
  ADMIN_PASSWORD: "bench-admin-password",
  SESSION_SECRET: "bench-session-secret-0123456789abcdef0123456789",
  API_KEY_PEPPER: "bench-api-key-pepper-0123456789abcdef0123456789",
  WALLET_MNEMONIC:
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
  TRON_NETWORK: "devnet",
  TRON_NODE_URL: "http://127.0.0.1:1",
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  LOG_LEVEL: "warn",
});
const ctx = await createContext(config, { migrate: false, log: createLogger({ level: "warn" }) });
// BENCH_WORKER_OPTIONS (JSON): sender options instead of the defaults (the bench's "before" run).
const overrides = JSON.parse(process.env.BENCH_WORKER_OPTIONS ?? "{}") as WebhookSenderOptions;
const sender = startWebhookSender(ctx, { ...overrides, workerId: process.env.BENCH_WORKER_ID });
process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  void sender
    .stop()
    .then(() => ctx.database.close())
    .then(() => process.exit(0));
});
