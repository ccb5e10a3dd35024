/**
 * A real EVM sweeper worker for the crash tests: the worker role's `sweeper-ethereum` and
 * `outbox-ethereum` loops, back to back, on a shared PostgreSQL. Env: DATABASE_URL, ETHEREUM_RPC_URL,
 * ETHEREUM_USDT_CONTRACT, ETHEREUM_USDC_CONTRACT, EVM_HOT_WALLET_PRIVATE_KEY, EVM_COLD_WALLET_ADDRESS,
 * WORKER_ID, KILL_AT (an EvmSweepStep: the process sends itself SIGKILL there), REPLACE_AFTER_MS (how
 * long a deposit's sweep below the market waits before its replacement; default the outbox's); for
 * 7702 mode EVM_SWEEP_MODE and EVM_SWEEPER_CONTRACT. Prints "ready".
 */
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { runDueEvmSweeps } from "../../src/sweeps/evm-sweeps.js";
import { testConfig } from "../helpers/config.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const env = (name: string) => process.env[name];
const ctx = await createContext(
  testConfig({
    DATABASE_URL: url,
    CHAINS: "ethereum",
    ETHEREUM_NETWORK: "devnet",
    ETHEREUM_RPC_URL: env("ETHEREUM_RPC_URL"),
    ETHEREUM_USDT_CONTRACT: env("ETHEREUM_USDT_CONTRACT"),
    ETHEREUM_USDC_CONTRACT: env("ETHEREUM_USDC_CONTRACT"),
    EVM_HOT_WALLET_PRIVATE_KEY: env("EVM_HOT_WALLET_PRIVATE_KEY"),
    EVM_COLD_WALLET_ADDRESS: env("EVM_COLD_WALLET_ADDRESS"),
    EVM_SWEEP_MODE: env("EVM_SWEEP_MODE"),
    EVM_SWEEPER_CONTRACT: env("EVM_SWEEPER_CONTRACT"),
    SWEEP_ENABLED: "true",
    SWEEP_MIN_USDT: "1",
  }),
  { migrate: false, log: createLogger({ level: process.env.WORKER_LOG_LEVEL ?? "silent" }) },
);
process.stdout.write("ready\n");
const owner = env("WORKER_ID") ?? `evm-sweeper-${process.pid}`;
const killAt = env("KILL_AT");
const signers = signerLookup(ctx, "ethereum");
const replaceAfterMs = env("REPLACE_AFTER_MS");
const replace = replaceAfterMs === undefined ? undefined : { replaceAfterMs: Number(replaceAfterMs) };
let first = true;
for (;;) {
  try {
    await runDueEvmSweeps(ctx, "ethereum", {
      owner,
      replace,
      onStep: (step) => {
        if (step === killAt) process.kill(process.pid, "SIGKILL");
      },
    });
    await runOutbox(ctx, "ethereum", { signers, resendAll: first });
    first = false;
  } catch (error) {
    process.stderr.write(`${String(error)}\n`);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}
