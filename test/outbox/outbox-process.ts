/**
 * A real outbox process for the restart test (PostgreSQL: shared with the test). Env: DATABASE_URL,
 * RPC_URL, HOT_KEY, MODE. MODE=submit submits the transfers in SUBMIT (JSON [{ref, to, value}]) at
 * once and prints "submitted" when all returned; MODE=worker runs the worker's outbox loop (its first
 * pass sends every pending transaction's stored bytes again) and prints "running".
 */
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { submit } from "../../src/outbox/submit.js";
import { startOutboxLoops } from "../../src/workers/outbox-loops.js";
import { testConfig } from "../helpers/config.js";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const ctx = await createContext(
  testConfig({
    CHAINS: "tron,ethereum",
    ETHEREUM_NETWORK: "devnet",
    ETHEREUM_RPC_URL: env("RPC_URL"),
    EVM_HOT_WALLET_PRIVATE_KEY: env("HOT_KEY"),
    DATABASE_URL: env("DATABASE_URL"),
  }),
  { migrate: false, log: createLogger({ level: process.env.WORKER_LOG_LEVEL ?? "silent" }) },
);
if (env("MODE") === "submit") {
  const transfers = JSON.parse(env("SUBMIT")) as { ref: string; to: string; value: string }[];
  await Promise.all(
    transfers.map((x) =>
      submit(ctx, "ethereum", {
        purpose: "test_transfer",
        ref: x.ref,
        to: x.to,
        value: BigInt(x.value),
        gasLimit: 21_000n,
      }),
    ),
  );
  process.stdout.write("submitted\n");
} else {
  startOutboxLoops(ctx);
  process.stdout.write("running\n");
}
