/**
 * A real payout sender process for the crash and race tests (PostgreSQL only: PGlite cannot be
 * shared between processes). Env: DATABASE_URL, TRON_NODE_URL, USDT_CONTRACT,
 * HOT_WALLET_PRIVATE_KEY, WORKER_ID, and CRASH_AT (signed | stored | broadcast | waiting): the
 * process SIGKILLs itself right after that step of its first send. Prints "ready" once it runs.
 */
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { runDuePayouts, type SendStep } from "../../src/payouts/send-payouts.js";
import { testConfig } from "../helpers/config.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const ctx = await createContext(
  testConfig({
    DATABASE_URL: url,
    TRON_NODE_URL: process.env.TRON_NODE_URL,
    USDT_CONTRACT: process.env.USDT_CONTRACT,
    HOT_WALLET_PRIVATE_KEY: process.env.HOT_WALLET_PRIVATE_KEY,
    SWEEP_ENABLED: "false",
  }),
  { migrate: false, log: createLogger({ level: process.env.WORKER_LOG_LEVEL ?? "silent" }) },
);
process.stdout.write("ready\n");
const owner = process.env.WORKER_ID ?? `payout-worker-${process.pid}`;
const crashAt = process.env.CRASH_AT as SendStep | undefined;
for (;;) {
  try {
    await runDuePayouts(ctx, {
      owner,
      limit: 5,
      onStep: (step) => {
        if (step === crashAt) process.kill(process.pid, "SIGKILL");
      },
    });
  } catch {
    // the test only watches the database and the chain
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
}
