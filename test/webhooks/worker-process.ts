/**
 * A real webhook worker process for the crash and multi-worker tests (PostgreSQL only: PGlite
 * cannot be shared between processes). Env: DATABASE_URL, WORKER_ID, LEASE_MS, CONCURRENCY,
 * RECORD_LINGER_MS.
 * Prints "ready" once the sender runs; SIGTERM stops it gracefully, SIGKILL is the crash under test.
 */
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { startWebhookSender } from "../../src/workers/webhook-sender.js";
import { testConfig } from "../helpers/config.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const ctx = await createContext(testConfig({ DATABASE_URL: url }), {
  migrate: false,
  log: createLogger({ level: process.env.WORKER_LOG_LEVEL ?? "silent" }),
});
const sender = startWebhookSender(ctx, {
  workerId: process.env.WORKER_ID,
  leaseMs: Number(process.env.LEASE_MS ?? 60_000),
  concurrency: Number(process.env.CONCURRENCY ?? 32),
  intervalMs: Number(process.env.POLL_MS ?? 50),
  ...(process.env.RECORD_LINGER_MS ? { recordLingerMs: Number(process.env.RECORD_LINGER_MS) } : {}),
});
process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  void sender
    .stop()
    .then(() => ctx.database.close())
    .then(() => process.exit(0));
});
