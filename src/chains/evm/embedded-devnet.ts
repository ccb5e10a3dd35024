/**
 * The embedded demo's EVM chains. Every enabled EVM chain on the `devnet` network with no
 * <CHAIN>_RPC_URL gets its own Anvil devnet (`@stablegate/devnet`'s startEvmDevnet: a real EVM node
 * in a child process) before the context is created, and the configuration is reloaded with its
 * endpoint and tokens. `npm start` with nothing configured enables `ethereum` so, beside `tron`
 * (embeddedChainList).
 *
 * Each chain is kept in DATA_DIR/devnet-<chain>-state.json (Anvil's own state file), so the demo
 * chain and the payments on it survive a restart as the TRON demo's do; DATA_DIR/devnet-<chain>.json
 * tells `npm run demo:pay` where it listens. Blocks come every DEVNET_BLOCK_TIME_MS, and the
 * `finalized` tag lags the head by DEMO_FINALITY_DEPTH blocks, so a demo payment gets its outcome
 * about ten blocks after it lands (Ethereum's own finality takes about 13 minutes).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EvmDevnet } from "@stablegate/devnet";
import type { Config, Env } from "../../config.js";
import type { ChainId } from "../chain-types.js";

/** Blocks between the newest block and the `finalized` tag on a demo chain (even, as Anvil needs). */
export const DEMO_FINALITY_DEPTH = 10;

/** The chains `npm start` enables when CHAINS is unset and TRON runs on the embedded devnet. */
export const DEMO_CHAINS = "tron,ethereum";

/** Each demo chain's chain id: Anvil's own for Ethereum, distinct ones after it. */
const DEMO_CHAIN_IDS: Readonly<Partial<Record<ChainId, number>>> = {
  ethereum: 31337,
  bsc: 31338,
  polygon: 31339,
  arbitrum: 31340,
  base: 31341,
};

export interface EmbeddedEvmDevnetInfo {
  chain: ChainId;
  rpc_url: string;
  chain_id: number;
  usdt_contract: string;
  usdc_contract: string;
  pid: number;
}

export interface EmbeddedEvmDevnet {
  chain: ChainId;
  devnet: EvmDevnet;
  /** The variables that point the configuration at it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export const evmDevnetInfoFile = (chain: ChainId): string => `devnet-${chain}.json`;

/** The EVM chains start-up must run a devnet for: on `devnet` and without an endpoint. */
export function embeddedEvmChains(config: Config): ChainId[] {
  return config.evmChains.filter((c) => c.network === "devnet" && c.rpcUrls.length === 0).map((c) => c.id);
}

/**
 * Starts the devnet of `chain` in DATA_DIR. BSC's USDT is the devnet's 18-decimal token, as on BSC;
 * every other chain's USDT is the Ethereum-like one (6 decimals, `transfer` returns nothing).
 */
export async function startEmbeddedEvmDevnet(config: Config, chain: ChainId): Promise<EmbeddedEvmDevnet> {
  const chainId = DEMO_CHAIN_IDS[chain];
  if (chainId === undefined) throw new Error(`${chain} is not an EVM chain`);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // Loaded here, not at the top: production processes (real endpoints) never load the devnet.
  const { startEvmDevnet } = await import("@stablegate/devnet");
  const devnet = await startEvmDevnet({
    port: 0,
    host: "127.0.0.1",
    chainId,
    blockTimeMs: config.devnet.blockTimeMs,
    finalityDepth: DEMO_FINALITY_DEPTH,
    stateFile: join(config.dataDir, `devnet-${chain}-state.json`),
  });
  const usdt = chain === "bsc" ? devnet.usdt18Contract : devnet.usdtContract;
  const info: EmbeddedEvmDevnetInfo = {
    chain,
    rpc_url: devnet.rpcUrl,
    chain_id: devnet.chainId,
    usdt_contract: usdt,
    usdc_contract: devnet.usdcContract,
    pid: process.pid,
  };
  const file = join(config.dataDir, evmDevnetInfoFile(chain));
  writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  return {
    chain,
    devnet,
    env: embeddedEvmEnv(info),
    async close() {
      await devnet.close();
      rmSync(file, { force: true });
    },
  };
}

/** The variables that point the configuration at a running demo chain. */
export function embeddedEvmEnv(info: EmbeddedEvmDevnetInfo): Record<string, string> {
  const prefix = info.chain.toUpperCase();
  return {
    [`${prefix}_NETWORK`]: "devnet",
    [`${prefix}_RPC_URL`]: info.rpc_url,
    [`${prefix}_USDT_CONTRACT`]: info.usdt_contract,
    [`${prefix}_USDC_CONTRACT`]: info.usdc_contract,
  };
}

/** CHAINS for a demo: as given, else DEMO_CHAINS when TRON runs on the embedded devnet. */
export function embeddedChainList(env: Env, tronDemo: boolean): Record<string, string> {
  return env.CHAINS === undefined && tronDemo ? { CHAINS: DEMO_CHAINS } : {};
}
