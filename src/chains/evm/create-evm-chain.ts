/**
 * Builds an EVM chain from its configuration: its RPC endpoints as one pool with failover, its
 * enabled tokens' contracts and its finality. Creating it never connects.
 */
import { EVM_FAUCET_PRIVATE_KEY } from "@stablegate/devnet/evm";
import type { Clock } from "../../clock.js";
import type { Config, EvmChainConfig } from "../../config.js";
import { ConfigError } from "../../config/env-values.js";
import type { Logger } from "../../logger.js";
import type { Metrics } from "../../metrics/metrics.js";
import type { Currency } from "../chain-types.js";
import type { NodePoolOptions } from "../node-pool.js";
import { createEvmChain, type EvmChain } from "./evm-chain.js";
import { createRpcPool } from "./rpc-pool.js";
import { checkEvmWallet } from "./wallet-check.js";

export interface EvmChainDependencies {
  log?: Logger | undefined;
  clock?: Clock | undefined;
  /** RPC calls are counted per endpoint (scheme://host:port only: a path may hold a key) and method. */
  metrics?: Metrics | undefined;
  /** Endpoints of the caller's (a devnet started in-process), instead of <CHAIN>_RPC_URL. */
  rpcUrls?: readonly string[] | undefined;
  /** Contracts of the caller's (a devnet's own), instead of the configured ones. */
  contracts?: readonly { currency: Currency; contract: string }[] | undefined;
  pool?: NodePoolOptions | undefined;
  /** A devnet's faucet key (sandbox payments; default the EVM devnet's own); only on a devnet network. */
  faucetPrivateKey?: string | undefined;
}

export { checkEvmWallet };

export function buildEvmChain(
  config: Config,
  chain: EvmChainConfig,
  deps: EvmChainDependencies = {},
): EvmChain {
  const urls = deps.rpcUrls ?? chain.rpcUrls;
  if (urls.length === 0)
    throw new ConfigError(
      `${chain.id.toUpperCase()}_RPC_URL`,
      `is required for ${chain.id} (a JSON-RPC URL)`,
    );
  const configured: { currency: Currency; contract: string }[] = [];
  if (chain.usdtContract) configured.push({ currency: "USDT", contract: chain.usdtContract.toLowerCase() });
  if (chain.usdcContract) configured.push({ currency: "USDC", contract: chain.usdcContract.toLowerCase() });
  const metrics = deps.metrics;
  const rpc = createRpcPool(urls, {
    ...(deps.log ? { log: deps.log } : {}),
    ...(metrics
      ? {
          onCall: (e) =>
            metrics.observeNodeCall(chain.id, e.node, e.method, e.durationMs, e.errorKind !== undefined),
        }
      : {}),
    ...deps.pool,
  });
  return createEvmChain({
    id: chain.id,
    network: chain.network,
    rpc,
    contracts: deps.contracts ?? configured,
    finality: chain.finality,
    finalityFallback: chain.finalityFallback,
    maxRange: chain.logRange,
    faucetPrivateKey:
      chain.network === "devnet" ? (deps.faucetPrivateKey ?? EVM_FAUCET_PRIVATE_KEY) : undefined,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
}
