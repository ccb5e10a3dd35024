/**
 * Shared set-up of the EVM outbox benchmarks (evm-nonces.ts, evm-payouts.ts): an in-process Anvil
 * devnet, a scratch PostgreSQL database (BENCH_DATABASE_URL, as the other benches) dropped on exit,
 * a context with one EVM chain on the devnet and a fresh random hot wallet funded with native coin,
 * and the clean-ups run in reverse on exit or SIGINT / SIGTERM.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { startEvmDevnet, type EvmDevnet } from "@stablegate/devnet";
import type { ChainId } from "../src/chains/chain-types.js";
import { loadConfig } from "../src/config.js";
import { createContext, type Context } from "../src/context.js";
import { openDatabase } from "../src/db/connection.js";
import { migrate } from "../src/db/migrate.js";
import { createLogger } from "../src/logger.js";
import { ADMIN_URL, benchBaseEnv } from "./chain-lib.js";

type Cleanup = () => Promise<void>;
const cleanups: Cleanup[] = [];

/** Runs at exit, in reverse order of registration. */
export function onExit(fn: Cleanup): void {
  cleanups.push(fn);
}

export async function cleanUp(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
}
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void cleanUp().then(() => process.exit(130)));

export interface EvmBench {
  devnet: EvmDevnet;
  ctx: Context;
  /** The scratch database's URL (for worker processes). */
  databaseUrl: string;
  /** The hot wallet's private key (hex, no 0x) and address. */
  hotKey: string;
  hot: string;
  /** The settings the context was made from, beside benchBaseEnv() (for worker processes). */
  env: Record<string, string>;
}

/**
 * The devnet, the database and the context of one EVM `chain`; the hot wallet holds `native` wei.
 * `tokens`: the chain's USDT contract is configured (a payout bench).
 */
export async function evmBench(options: {
  chain: ChainId;
  blockTimeMs: number;
  finalityDepth: number;
  native: bigint;
  tokens?: boolean;
}): Promise<EvmBench> {
  const devnet = await startEvmDevnet({
    port: 0,
    blockTimeMs: options.blockTimeMs,
    finalityDepth: options.finalityDepth,
  });
  onExit(() => devnet.close());
  const dbName = `sg_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  onExit(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  });
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 10 });
  onExit(() => database.close());
  await migrate(database);
  const hotKey = randomBytes(32).toString("hex");
  const name = options.chain.toUpperCase();
  const env: Record<string, string> = {
    TRON_NETWORK: "devnet",
    TRON_NODE_URL: "http://127.0.0.1:1",
    CHAINS: `tron,${options.chain}`,
    [`${name}_NETWORK`]: "devnet",
    [`${name}_RPC_URL`]: devnet.rpcUrl,
    ...(options.tokens
      ? { [`${name}_USDT_CONTRACT`]: devnet.usdtContract, [`${name}_FINALITY`]: "finalized" }
      : {}),
    EVM_HOT_WALLET_PRIVATE_KEY: hotKey,
    LOG_LEVEL: "silent",
  };
  const ctx = await createContext(loadConfig({ ...benchBaseEnv(), ...env }), {
    database,
    log: createLogger({ level: "silent" }),
  });
  onExit(() => ctx.chains.close());
  const nonces = ctx.chains.get(options.chain)?.nonces;
  if (!nonces) throw new Error(`${options.chain} sends no nonces on the devnet`);
  const hot = nonces.signer(hotKey).address;
  await devnet.rpc("anvil_setBalance", [hot, "0x" + options.native.toString(16)]);
  return { devnet, ctx, databaseUrl: url.toString(), hotKey, hot, env };
}
