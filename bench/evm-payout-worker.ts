/**
 * The worker process of bench/evm-payouts.ts: the worker role's payout and outbox loops on
 * `arbitrum` (env: DATABASE_URL, RPC_URL, USDT_CONTRACT, HOT_KEY). Prints "running".
 */
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { createLogger } from "../src/logger.js";
import { startOutboxLoops } from "../src/workers/outbox-loops.js";
import { startPayoutLoops } from "../src/workers/payout-loops.js";
import { benchBaseEnv } from "./chain-lib.js";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const ctx = await createContext(
  loadConfig({
    ...benchBaseEnv(),
    TRON_NETWORK: "devnet",
    TRON_NODE_URL: "http://127.0.0.1:1",
    CHAINS: "tron,arbitrum",
    ARBITRUM_NETWORK: "devnet",
    ARBITRUM_RPC_URL: env("RPC_URL"),
    ARBITRUM_USDT_CONTRACT: env("USDT_CONTRACT"),
    ARBITRUM_FINALITY: "finalized",
    EVM_HOT_WALLET_PRIVATE_KEY: env("HOT_KEY"),
    DATABASE_URL: env("DATABASE_URL"),
    LOG_LEVEL: "silent",
  }),
  { migrate: false, log: createLogger({ level: "silent" }) },
);
startPayoutLoops(ctx);
startOutboxLoops(ctx);
process.stdout.write("running\n");
