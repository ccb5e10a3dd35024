/**
 * A real sweeper worker process for the crash tests (PostgreSQL only: PGlite cannot be shared
 * between processes). Env: DATABASE_URL, TRON_NODE_URL, USDT_CONTRACT, HOT_WALLET_PRIVATE_KEY,
 * COLD_WALLET_ADDRESS, SWEEP_MODE, WORKER_ID. Prints "ready" once it sweeps; SIGKILL is the crash
 * under test.
 */
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { testConfig } from "../helpers/config.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const ctx = await createContext(
  testConfig({
    DATABASE_URL: url,
    TRON_NODE_URL: process.env.TRON_NODE_URL,
    USDT_CONTRACT: process.env.USDT_CONTRACT,
    HOT_WALLET_PRIVATE_KEY: process.env.HOT_WALLET_PRIVATE_KEY,
    COLD_WALLET_ADDRESS: process.env.COLD_WALLET_ADDRESS,
    SWEEP_ENABLED: "true",
    SWEEP_MODE: process.env.SWEEP_MODE ?? "delegate",
  }),
  { migrate: false, log: createLogger({ level: process.env.WORKER_LOG_LEVEL ?? "silent" }) },
);
process.stdout.write("ready\n");
const owner = process.env.WORKER_ID ?? `sweeper-${process.pid}`;
for (;;) {
  try {
    await runDueSweeps(ctx, { owner });
  } catch {
    // the test only watches the database and the chain
  }
  await new Promise((resolve) => setTimeout(resolve, 30));
}
