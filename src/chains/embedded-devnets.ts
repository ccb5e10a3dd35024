/**
 * The embedded demo's chains, started before the context: TRON's devnet in-process when
 * TRON_NETWORK=devnet has no TRON_NODE_URL (tron/embedded-devnet.ts), and an Anvil devnet for every
 * EVM chain on `devnet` without an endpoint (evm/embedded-devnet.ts). With CHAINS unset, the TRON
 * demo enables `ethereum` beside `tron`, so `npm start` shows both families. The configuration is
 * reloaded with every started chain's endpoint and tokens.
 */
import type { Devnet } from "@stablegate/devnet";
import { reloadConfig, type Config, type Env } from "../config.js";
import {
  DEMO_FINALITY_DEPTH,
  embeddedChainList,
  embeddedEvmChains,
  startEmbeddedEvmDevnet,
  type EmbeddedEvmDevnet,
} from "./evm/embedded-devnet.js";
import { devnetEnv, needsEmbeddedDevnet, startEmbeddedDevnet } from "./tron/embedded-devnet.js";

export { DEMO_FINALITY_DEPTH, type EmbeddedEvmDevnet };

export interface EmbeddedDevnets {
  /** The configuration pointed at every started devnet. */
  config: Config;
  tron: Devnet | undefined;
  evm: EmbeddedEvmDevnet[];
  close(): Promise<void>;
}

export async function startEmbeddedDevnets(
  initial: Config,
  env: Env,
  onWarning: (message: string) => void,
): Promise<EmbeddedDevnets> {
  const tronDemo = needsEmbeddedDevnet(initial);
  const evm: EmbeddedEvmDevnet[] = [];
  let tron: Devnet | undefined;
  const close = async () => {
    for (const devnet of evm.splice(0).reverse()) await devnet.close();
    await tron?.close();
    tron = undefined;
  };
  try {
    let overrides: Env = embeddedChainList(env, tronDemo);
    if (tronDemo) {
      tron = await startEmbeddedDevnet(initial, onWarning);
      overrides = { ...overrides, ...devnetEnv(tron) };
    }
    let config = Object.keys(overrides).length > 0 ? reloadConfig(overrides, env) : initial;
    for (const chain of embeddedEvmChains(config)) {
      const started = await startEmbeddedEvmDevnet(config, chain);
      evm.push(started);
      overrides = { ...overrides, ...started.env };
    }
    if (evm.length > 0) config = reloadConfig(overrides, env);
    return { config, tron, evm, close };
  } catch (error) {
    await close();
    throw error;
  }
}
