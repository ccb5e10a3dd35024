/**
 * One EVM devnet (Anvil with the three tokens) per test file: started before the file's tests,
 * stopped after them. Blocks come only on demand (`devnet.mine()`) unless the options say
 * otherwise, so a test decides when a transaction lands.
 */
import { afterAll, beforeAll } from "vitest";
import { startEvmDevnet, type EvmDevnet, type EvmDevnetOptions } from "@stablegate/devnet";

export function evmDevnetForFile(opts: EvmDevnetOptions = {}): () => EvmDevnet {
  let devnet: EvmDevnet | undefined;
  beforeAll(async () => {
    devnet = await startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 4, ...opts });
  }, 60_000);
  afterAll(async () => {
    await devnet?.close();
  });
  return () => {
    if (!devnet) throw new Error("the EVM devnet has not started (use it inside a test)");
    return devnet;
  };
}

export interface EvmLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
}

export interface EvmReceipt {
  status: string;
  blockNumber: string;
  blockHash: string;
  logs: EvmLog[];
}

/** The receipt of `hash`, after mining a block if it is still pending. */
export async function minedReceipt(devnet: EvmDevnet, hash: string): Promise<EvmReceipt> {
  let receipt = await devnet.rpc<EvmReceipt | null>("eth_getTransactionReceipt", [hash]);
  if (!receipt) {
    await devnet.mine();
    receipt = await devnet.rpc<EvmReceipt | null>("eth_getTransactionReceipt", [hash]);
  }
  if (!receipt) throw new Error(`transaction ${hash} is not in a block after mining one`);
  return receipt;
}

/** keccak256("Transfer(address,address,uint256)"): the ERC-20 Transfer event's topic. */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** A 20-byte address as a 32-byte topic. */
export function addressTopic(address: string): string {
  return "0x" + address.toLowerCase().replace(/^0x/, "").padStart(64, "0");
}

/** The settings that enable `chain` on `devnet`: its network, RPC URL and token contracts. */
export function evmChainEnv(
  chain: string,
  devnet: EvmDevnet,
  usdt = devnet.usdtContract,
): Record<string, string> {
  const prefix = chain.toUpperCase();
  return {
    [`${prefix}_NETWORK`]: "devnet",
    [`${prefix}_RPC_URL`]: devnet.rpcUrl,
    [`${prefix}_USDT_CONTRACT`]: usdt,
    [`${prefix}_USDC_CONTRACT`]: devnet.usdcContract,
  };
}

const word = (v: bigint | string) =>
  (typeof v === "string" ? v.replace(/^0x/, "") : v.toString(16)).padStart(64, "0");

/** A `transfer(to, units)` of `token` from the devnet's faucet (an unlocked account), left pending. */
export function sendToken(devnet: EvmDevnet, token: string, to: string, units: bigint): Promise<string> {
  return devnet.rpc<string>("eth_sendTransaction", [
    { from: devnet.faucetAddress, to: token, data: "0xa9059cbb" + word(to) + word(units), gas: "0x30000" },
  ]);
}
