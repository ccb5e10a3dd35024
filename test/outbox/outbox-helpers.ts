/**
 * An EVM outbox on the Anvil devnet for a test file: a context whose `ethereum` chain is the devnet
 * and whose hot wallet is a fresh funded key, on a fresh database.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { createContext, type Context } from "../../src/context.js";
import { queryRows } from "../../src/db/query-rows.js";
import { createLogger } from "../../src/logger.js";
import { hotWalletSigner, signerLookup } from "../../src/outbox/signers.js";
import { runOutbox, type OutboxOptions } from "../../src/outbox/run-outbox.js";
import type { EvmDevnet } from "@stablegate/devnet";
import { testConfig } from "../helpers/config.js";
import type { TestDatabase } from "../helpers/db.js";

export const ETH = 10n ** 18n;

export const randomAddress = () => "0x" + randomBytes(20).toString("hex");

export interface OutboxTest {
  ctx: Context;
  hot: string;
  key: string;
  pass(options?: Partial<OutboxOptions>): ReturnType<typeof runOutbox>;
}

export function outboxEnv(devnet: EvmDevnet, key: string, databaseUrl?: string): Record<string, string> {
  return {
    CHAINS: "tron,ethereum",
    ETHEREUM_NETWORK: "devnet",
    ETHEREUM_RPC_URL: devnet.rpcUrl,
    ETHEREUM_FINALITY: "finalized",
    EVM_HOT_WALLET_PRIVATE_KEY: key,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
}

export async function startOutboxTest(devnet: EvmDevnet, testDb: TestDatabase): Promise<OutboxTest> {
  const key = randomBytes(32).toString("hex");
  const ctx = await createContext(testConfig(outboxEnv(devnet, key)), {
    database: testDb.database,
    log: createLogger({ level: "silent" }),
  });
  const signers = signerLookup(ctx, "ethereum");
  const hot = hotWalletSigner(ctx, "ethereum").address;
  await devnet.rpc("anvil_setBalance", [hot, "0x" + (1000n * ETH).toString(16)]);
  return { ctx, hot, key, pass: (options = {}) => runOutbox(ctx, "ethereum", { signers, ...options }) };
}

export async function balanceOf(devnet: EvmDevnet, address: string): Promise<bigint> {
  return BigInt(await devnet.rpc<string>("eth_getBalance", [address, "latest"]));
}

export async function nonceOf(devnet: EvmDevnet, address: string): Promise<number> {
  return Number(BigInt(await devnet.rpc<string>("eth_getTransactionCount", [address, "latest"])));
}

export type Row = {
  id: string;
  nonce: number;
  purpose: string;
  ref: string;
  generation: number;
  state: string;
  tx_hash: string;
  raw: string;
  max_fee: string;
};

export async function outboxRows(ctx: Context): Promise<Row[]> {
  const rows = await queryRows<Omit<Row, "nonce"> & { nonce: string }>(
    ctx.db,
    sql`SELECT id::text AS id, nonce::text AS nonce, purpose, ref, generation, state, tx_hash, raw,
          max_fee_per_gas::text AS max_fee
        FROM evm_transactions ORDER BY nonce, generation, id`,
  );
  return rows.map((r) => ({ ...r, nonce: Number(r.nonce) }));
}
