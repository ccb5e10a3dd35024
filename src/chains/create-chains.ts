/**
 * Builds ctx.chains from the configuration: each enabled chain (CHAINS, in its order: the first is
 * an order's default) by its family's factory. Adding a family adds a folder and a factory here;
 * adding a network of a known family adds a row to FAMILY_OF (chain-types.ts) and its
 * configuration.
 */
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Chain } from "./chain.js";
import type { ChainId } from "./chain-types.js";
import { buildEvmChain, checkEvmWallet, type EvmChainDependencies } from "./evm/create-evm-chain.js";
import { chainRegistry, type ChainRegistry } from "./registry.js";
import { createChainAccess, type ChainAccess } from "./tron/chain-access.js";
import { createTronChain } from "./tron/tron-chain.js";

export type { ChainAccess };

export interface ChainDependencies {
  log: Logger;
  metrics: Metrics;
  clock: Clock;
  /** TRON's node access of the caller's (tests, benchmarks); default one from TRON_NODE_URL. */
  tron?: ChainAccess | undefined;
  /** Per EVM chain, endpoints or contracts of the caller's (a devnet started in-process). */
  evm?: Partial<Record<ChainId, EvmChainDependencies>> | undefined;
}

export interface Chains {
  registry: ChainRegistry;
  /** TRON's node access, which sweeps and payouts still sign and broadcast through. */
  tron: ChainAccess;
}

export function createChains(config: Config, deps: ChainDependencies): Chains {
  const tron = deps.tron ?? createChainAccess(config, deps);
  const evm = new Map(config.evmChains.map((c) => [c.id, c]));
  if (evm.size > 0) checkEvmWallet(config);
  const chains: Chain[] = config.chains.map((id) => {
    const evmConfig = evm.get(id);
    if (!evmConfig) return createTronChain(tron);
    return buildEvmChain(config, evmConfig, {
      log: deps.log,
      clock: deps.clock,
      metrics: deps.metrics,
      ...deps.evm?.[id],
    });
  });
  const registry = chainRegistry(chains);
  deps.metrics.watchChains(registry.list);
  return { registry, tron };
}
