/**
 * A real sweeper worker process for the static-sweep crash test (PostgreSQL only: PGlite cannot be
 * shared between processes). Env: DATABASE_URL, TRON_NODE_URL, USDT_CONTRACT, HOT_WALLET_PRIVATE_KEY,
 * COLD_WALLET_ADDRESS, SWEEP_MIN_USDT, WORKER_ID, and CRASH_AT (signed | stored | broadcast |
 * waiting): the process SIGKILLs itself right after that step of a sweep transfer (the USDT
 * transfer to the cold wallet). Prints "ready" once it sweeps.
 */
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import type { SweepStep } from "../../src/sweeps/sweep-types.js";
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
    SWEEP_MODE: "burn",
    SWEEP_MIN_USDT: process.env.SWEEP_MIN_USDT,
  }),
  { migrate: false, log: createLogger({ level: process.env.WORKER_LOG_LEVEL ?? "silent" }) },
);
process.stdout.write("ready\n");
const owner = process.env.WORKER_ID ?? `static-sweeper-${process.pid}`;
const crashAt = process.env.CRASH_AT as SweepStep | undefined;
for (;;) {
  try {
    await runDueSweeps(ctx, {
      owner,
      onStep: (step, kind) => {
        if (step === crashAt && kind === "sweep") process.kill(process.pid, "SIGKILL");
      },
    });
  } catch {
    // the test only watches the database and the chain
  }
  await new Promise((resolve) => setTimeout(resolve, 30));
}
