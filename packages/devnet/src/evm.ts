// The EVM devnet: Anvil (a real EVM node) with a USDT, a USDC and an 18-decimal USDT deployed at
// fixed addresses and a faucet holding ETH and every token (see README.md, "The EVM devnet").
import { keccak256 } from "@stablegate/tron/hash";
import { spawnAnvil } from "./anvil.js";
import { EVM_TOKENS } from "./evm-tokens.js";

/**
 * Anvil's first dev account (the "test test … junk" mnemonic): the faucet, the deployer and the
 * tokens' owner. Public: never use it anywhere else.
 */
export const EVM_FAUCET_PRIVATE_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
export const EVM_FAUCET_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

/** How often a devnet with a state file writes it (Anvil also writes it on exit). */
const STATE_INTERVAL_S = 5;

/** Whole tokens each contract mints to the faucet at deployment. */
const INITIAL_WHOLE_TOKENS = 1_000_000_000n;

export interface EvmDevnetOptions {
  /** 0 = a free port (default 8545). */
  port?: number;
  host?: string;
  /** Default 31337, Anvil's. */
  chainId?: number;
  /** Anvil's interval mining, in ms; 0 = blocks only on demand (`evm_mine`, `anvil_mine`). Default 2000. */
  blockTimeMs?: number;
  /**
   * The `finalized` block tag lags the newest block by this many blocks (even; default 64, as
   * Ethereum's two epochs). Anvil's finalized block is latest - 2 × slots-in-an-epoch, so the
   * devnet passes `--slots-in-an-epoch` = N / 2 (and `safe` lags by N / 2).
   */
  finalityDepth?: number;
  /**
   * Keep the chain in this file: Anvil loads it at start (blocks, hashes and balances as they
   * were) and writes it every few seconds and on exit; the tokens found there are used, not
   * deployed again.
   */
  stateFile?: string;
  /** Forward Anvil's stderr to ours (default: quiet). */
  verbose?: boolean;
}

export interface EvmDevnet {
  rpcUrl: string;
  chainId: number;
  usdtContract: string;
  usdcContract: string;
  usdt18Contract: string;
  faucetAddress: string;
  faucetPrivateKey: string;
  blockTimeMs: number;
  finalityDepth: number;
  /** Anvil's process id, when known (POSIX). */
  anvilPid: number | undefined;
  /** One JSON-RPC call to Anvil; an error reply throws. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines n (default 1) blocks now; returns the new head number. */
  mine(n?: number): Promise<number>;
  /** The fields of the `devnet ready {json}` line. */
  readyInfo(): EvmReadyInfo;
  close(): Promise<void>;
}

export interface EvmReadyInfo {
  rpc_url: string;
  chain_id: number;
  usdt_contract: string;
  usdc_contract: string;
  usdt18_contract: string;
  faucet_address: string;
  faucet_private_key: string;
}

function nonNegative(v: number | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return v;
}

export async function startEvmDevnet(opts: EvmDevnetOptions = {}): Promise<EvmDevnet> {
  const host = opts.host ?? "127.0.0.1";
  const port = nonNegative(opts.port, "port", 8545);
  const chainId = nonNegative(opts.chainId, "chainId", 31337);
  if (chainId === 0) throw new RangeError("chainId must be positive");
  const blockTimeMs = nonNegative(opts.blockTimeMs, "blockTimeMs", 2000);
  const finalityDepth = nonNegative(opts.finalityDepth, "finalityDepth", 64);
  if (finalityDepth % 2 !== 0) {
    throw new RangeError("finalityDepth must be even: Anvil finalizes latest - 2 × slots-in-an-epoch");
  }

  const args = [
    "--host",
    host,
    "--port",
    String(port),
    "--chain-id",
    String(chainId),
    "--slots-in-an-epoch",
    String(finalityDepth / 2),
    ...(blockTimeMs > 0 ? ["--block-time", String(blockTimeMs / 1000)] : ["--no-mining"]),
    ...(opts.stateFile ? ["--state", opts.stateFile, "--state-interval", String(STATE_INTERVAL_S)] : []),
  ];
  const log = opts.verbose ? (line: string) => console.error(line) : () => {};
  const anvil = await spawnAnvil(args, log);
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const rpcUrl = `http://${urlHost}:${anvil.port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
    return body.result as T;
  };

  try {
    const contracts = await deployTokens(rpc, chainId);
    const devnet: EvmDevnet = {
      rpcUrl,
      chainId,
      ...contracts,
      faucetAddress: EVM_FAUCET_ADDRESS,
      faucetPrivateKey: EVM_FAUCET_PRIVATE_KEY,
      blockTimeMs,
      finalityDepth,
      get anvilPid() {
        return anvil.pid;
      },
      rpc,
      mine: async (n = 1) => {
        await rpc("anvil_mine", ["0x" + n.toString(16)]);
        return Number(await rpc<string>("eth_blockNumber"));
      },
      readyInfo: () => ({
        rpc_url: rpcUrl,
        chain_id: chainId,
        usdt_contract: contracts.usdtContract,
        usdc_contract: contracts.usdcContract,
        usdt18_contract: contracts.usdt18Contract,
        faucet_address: EVM_FAUCET_ADDRESS,
        faucet_private_key: EVM_FAUCET_PRIVATE_KEY,
      }),
      close: () => anvil.stop(),
    };
    return devnet;
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

type Rpc = <T>(method: string, params?: unknown[]) => Promise<T>;

/**
 * Deploys the three tokens from the faucet at nonces 0, 1, 2 (so at the same addresses on every
 * start), each minting 1e9 whole tokens to the faucet, and mines them into one block at once,
 * whatever the mining mode.
 */
async function deployTokens(
  rpc: Rpc,
  chainId: number,
): Promise<{ usdtContract: string; usdcContract: string; usdt18Contract: string }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const id = Number(await rpc<string>("eth_chainId"));
      if (id !== chainId) throw new Error(`anvil answers chain id ${id}, not ${chainId}`);
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const accounts = await rpc<string[]>("eth_accounts");
  if (accounts[0]?.toLowerCase() !== EVM_FAUCET_ADDRESS.toLowerCase()) {
    throw new Error(`anvil's first account is ${accounts[0]}, not the faucet ${EVM_FAUCET_ADDRESS}`);
  }
  const deployments = [
    { artifact: EVM_TOKENS.usdt, decimals: 6n },
    { artifact: EVM_TOKENS.usdc, decimals: 6n },
    { artifact: EVM_TOKENS.usdt18, decimals: 18n },
  ];
  // A chain loaded from a state file holds the tokens already, at the faucet's first three nonces.
  const sent = Number(await rpc<string>("eth_getTransactionCount", [EVM_FAUCET_ADDRESS, "latest"]));
  if (sent >= deployments.length) {
    const found = deployments.map((_, nonce) => createdAddress(EVM_FAUCET_ADDRESS, nonce));
    for (const [i, address] of found.entries()) {
      const code = await rpc<string>("eth_getCode", [address, "latest"]);
      if (code === "0x")
        throw new Error(`the loaded chain has no ${deployments[i]?.artifact.contract} at ${address}`);
    }
    const [usdtContract, usdcContract, usdt18Contract] = found as [string, string, string];
    return { usdtContract, usdcContract, usdt18Contract };
  }
  const hashes: string[] = [];
  for (const [nonce, d] of deployments.entries()) {
    const supply = INITIAL_WHOLE_TOKENS * 10n ** d.decimals;
    hashes.push(
      await rpc<string>("eth_sendTransaction", [
        {
          from: EVM_FAUCET_ADDRESS,
          nonce: "0x" + nonce.toString(16),
          gas: "0x" + (3_000_000).toString(16),
          data: d.artifact.bytecode + supply.toString(16).padStart(64, "0"),
        },
      ]),
    );
  }
  await rpc("evm_mine");
  const addresses: string[] = [];
  for (const [i, hash] of hashes.entries()) {
    const receipt = await rpc<{ status: string; contractAddress: string } | null>(
      "eth_getTransactionReceipt",
      [hash],
    );
    if (receipt?.status !== "0x1") {
      throw new Error(`deploying ${deployments[i]?.artifact.contract} failed: ${JSON.stringify(receipt)}`);
    }
    addresses.push(toChecksumAddress(receipt.contractAddress));
  }
  const [usdtContract, usdcContract, usdt18Contract] = addresses as [string, string, string];
  return { usdtContract, usdcContract, usdt18Contract };
}

/**
 * The address a CREATE from `sender` at `nonce` (0 to 127) deploys to: the last 20 bytes of
 * keccak256(rlp([sender, nonce])), EIP-55 spelt.
 */
function createdAddress(sender: string, nonce: number): string {
  if (!Number.isInteger(nonce) || nonce < 0 || nonce > 127) throw new RangeError("nonce must be 0 to 127");
  const list = Buffer.concat([
    Buffer.from([0x94]),
    Buffer.from(sender.replace(/^0x/, ""), "hex"),
    Buffer.from([nonce === 0 ? 0x80 : nonce]),
  ]);
  const encoded = Buffer.concat([Buffer.from([0xc0 + list.length]), list]);
  return toChecksumAddress("0x" + Buffer.from(keccak256(encoded)).toString("hex").slice(24));
}

/** EIP-55 mixed-case checksum spelling of a 20-byte hex address. */
export function toChecksumAddress(address: string): string {
  const hex = address.toLowerCase().replace(/^0x/, "");
  const hash = Buffer.from(keccak256(new TextEncoder().encode(hex))).toString("hex");
  let out = "0x";
  for (let i = 0; i < hex.length; i++) {
    out += parseInt(hash[i] as string, 16) >= 8 ? (hex[i] as string).toUpperCase() : hex[i];
  }
  return out;
}
