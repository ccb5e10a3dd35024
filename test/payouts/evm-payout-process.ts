/**
 * A real worker process for the EVM payout crash test (PostgreSQL, shared with the test): the
 * worker role's payout loops (the EVM sender per chain) and outbox loops, as `serve --role worker`
 * starts them, on `arbitrum` at RPC_URL. Env: DATABASE_URL, RPC_URL, USDT_CONTRACT, HOT_KEY.
 * Prints "running".
 */
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { startOutboxLoops } from "../../src/workers/outbox-loops.js";
import { startPayoutLoops } from "../../src/workers/payout-loops.js";
import { testConfig } from "../helpers/config.js";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const ctx = await createContext(
  testConfig({
    CHAINS: "tron,arbitrum",
    ARBITRUM_NETWORK: "devnet",
    ARBITRUM_RPC_URL: env("RPC_URL"),
    ARBITRUM_USDT_CONTRACT: env("USDT_CONTRACT"),
    ARBITRUM_FINALITY: "finalized",
    EVM_HOT_WALLET_PRIVATE_KEY: env("HOT_KEY"),
    DATABASE_URL: env("DATABASE_URL"),
  }),
  { migrate: false, log: createLogger({ level: process.env.WORKER_LOG_LEVEL ?? "silent" }) },
);
startPayoutLoops(ctx);
startOutboxLoops(ctx);
process.stdout.write("running\n");
