/**
 * The chains' variables (DESIGN.md 16): CHAINS, and per EVM chain <CHAIN>_RPC_URL, _NETWORK,
 * _USDT_CONTRACT, _USDC_CONTRACT, _FINALITY, _LOG_RANGE and _COLD_WALLET_ADDRESS; the EVM wallet
 * shared by every EVM chain (EVM_WALLET_XPUB, derived from WALLET_MNEMONIC where that is set;
 * EVM_HOT_WALLET_PRIVATE_KEY, EVM_HOT_WALLET_ADDRESS, EVM_COLD_WALLET_ADDRESS). Shapes are checked
 * here; EIP-55 checksums and the hot wallet key's address are checked by the EVM family when the
 * chains are built (src/chains/evm/wallet-check.ts), where the EVM toolkit lives.
 */
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { CHAIN_IDS, isChainId, type ChainId, type Currency } from "../chains/chain-types.js";
import { ConfigError, integer, urlList, type ReadVariable } from "./env-values.js";
import type { SweepFamilies } from "./wallets.js";

/** Network names per EVM chain besides `mainnet` and `devnet`. */
export const EVM_TESTNETS: Readonly<Record<Exclude<ChainId, "tron">, readonly string[]>> = {
  ethereum: ["sepolia", "holesky", "hoodi"],
  bsc: ["testnet"],
  polygon: ["amoy"],
  arbitrum: ["sepolia"],
  base: ["sepolia"],
};

/** Mainnet contracts (community-cited; each is overridden by its variable). Base has no USDT. */
export const EVM_MAINNET_CONTRACTS: Readonly<
  Record<Exclude<ChainId, "tron">, Readonly<Partial<Record<Currency, string>>>>
> = {
  ethereum: {
    USDT: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
    USDC: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
  },
  bsc: {
    USDT: "0x55d398326f99059fF775485246999027B3197955",
    USDC: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d",
  },
  polygon: {
    USDT: "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
    USDC: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
  },
  arbitrum: {
    USDT: "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9",
    USDC: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
  },
  base: { USDC: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" },
};

/**
 * Confirmations that count as final when a chain's `finalized` tag stalls. BSC finalizes in about
 * two blocks (fast finality); when its finality votes stall, 120 blocks (6 minutes) of
 * confirmations stand in, as exchanges count on BSC, and the chain's finality_fallback alert fires.
 * Ethereum, Arbitrum and Base's tags follow L1 epochs and Polygon's its milestones: waiting for
 * them is correct there, so they have none.
 */
export const FINALITY_FALLBACK: Readonly<Partial<Record<ChainId, number>>> = { bsc: 120 };

export interface EvmChainConfig {
  readonly id: ChainId;
  /** `mainnet`, a testnet's name, or `devnet`. */
  readonly network: string;
  /** The endpoints, preferred first; empty only on a devnet whose node is started in-process. */
  readonly rpcUrls: readonly string[];
  /** Contracts as configured (checksum checked by the family); undefined = not enabled. */
  readonly usdtContract: string | undefined;
  readonly usdcContract: string | undefined;
  /** `finalized` (the block tag) or a number of confirmations. */
  readonly finality: "finalized" | number;
  /**
   * With `finalized` finality: the confirmations that count as final while the tag stalls further
   * behind the head than that (FINALITY_FALLBACK: BSC's fast finality); undefined: the tag alone.
   */
  readonly finalityFallback: number | undefined;
  /** Most blocks per eth_getLogs call (shrunk further when the provider refuses a range). */
  readonly logRange: number;
  readonly coldWalletAddress: string | undefined;
  /** <CHAIN>_SWEEPER_CONTRACT, else EVM_SWEEPER_CONTRACT: the 7702 sweeper on this chain. */
  readonly sweeperContract: string | undefined;
}

export interface EvmWalletConfig {
  /** Account level, m/44'/60'/0'; undefined when no EVM chain is enabled and EVM_WALLET_XPUB is unset. */
  readonly xpub: string | undefined;
  /** Hex without 0x. */
  readonly hotWalletPrivateKey: string | undefined;
  readonly hotWalletAddress: string | undefined;
  readonly coldWalletAddress: string | undefined;
  /** EVM_SWEEP_MODE: `topup` (default: gas sent to the address) or `7702` (docs/evm-sweeps.md). */
  readonly sweepMode: EvmSweepMode;
  /** EVM_SWEEPER_CONTRACT: the 7702 sweeper, where one address serves every chain (per chain: <CHAIN>_SWEEPER_CONTRACT). */
  readonly sweeperContract: string | undefined;
}

export const EVM_SWEEP_MODES = ["topup", "7702"] as const;
export type EvmSweepMode = (typeof EVM_SWEEP_MODES)[number];

export interface ChainsConfig {
  /** Enabled chains, the primary (an order's default) first. */
  readonly chains: readonly ChainId[];
  readonly evmChains: readonly EvmChainConfig[];
  readonly evmWallet: EvmWalletConfig;
}

const SHAPED_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function address(read: ReadVariable, name: string): string | undefined {
  const value = read(name);
  if (value !== undefined && !SHAPED_ADDRESS.test(value))
    throw new ConfigError(name, "is not an EVM address (0x and 40 hex digits)");
  return value;
}

export function chainList(raw: string | undefined): ChainId[] {
  if (raw === undefined) return ["tron"];
  const names = raw.split(",").map((part) => part.trim().toLowerCase());
  if (names.some((n) => n === ""))
    throw new ConfigError("CHAINS", "has an empty entry in its comma-separated list");
  for (const n of names)
    if (!isChainId(n))
      throw new ConfigError("CHAINS", `names an unknown chain "${n}"; known: ${CHAIN_IDS.join(", ")}`);
  if (new Set(names).size !== names.length) throw new ConfigError("CHAINS", "lists a chain twice");
  return names as ChainId[];
}

function finality(raw: string | undefined, name: string): "finalized" | number {
  if (raw === undefined || raw === "finalized") return "finalized";
  if (!/^\d+$/.test(raw))
    throw new ConfigError(name, `must be "finalized" or a number of confirmations, got "${raw}"`);
  return integer(raw, name, 0, 1, 100_000);
}

function evmChain(read: ReadVariable, id: Exclude<ChainId, "tron">, isProduction: boolean): EvmChainConfig {
  const prefix = id.toUpperCase();
  const networks = ["mainnet", ...EVM_TESTNETS[id], "devnet"];
  const networkName = `${prefix}_NETWORK`;
  const network = read(networkName) ?? (isProduction ? undefined : "devnet");
  if (network === undefined) throw new ConfigError(networkName, `is required; one of ${networks.join(", ")}`);
  if (!networks.includes(network))
    throw new ConfigError(networkName, `must be one of ${networks.join(", ")}, got "${network}"`);
  if (isProduction && network === "devnet")
    throw new ConfigError(
      networkName,
      `devnet is refused in production; use ${networks.slice(0, -1).join(", ")}`,
    );
  const rpcName = `${prefix}_RPC_URL`;
  const rpcUrls = urlList(read(rpcName), rpcName) ?? [];
  if (rpcUrls.length === 0 && network !== "devnet")
    throw new ConfigError(
      rpcName,
      `is required for ${id} ${network} (a JSON-RPC URL, comma-separated for failover)`,
    );
  const defaults = network === "mainnet" ? EVM_MAINNET_CONTRACTS[id] : {};
  const usdtContract = address(read, `${prefix}_USDT_CONTRACT`) ?? defaults.USDT;
  const usdcContract = address(read, `${prefix}_USDC_CONTRACT`) ?? defaults.USDC;
  if (network !== "devnet" && usdtContract === undefined && usdcContract === undefined)
    throw new ConfigError(
      `${prefix}_USDT_CONTRACT`,
      `or ${prefix}_USDC_CONTRACT is required on ${id} ${network}`,
    );
  return {
    id,
    network,
    rpcUrls: Object.freeze(rpcUrls),
    usdtContract,
    usdcContract,
    finality: finality(read(`${prefix}_FINALITY`), `${prefix}_FINALITY`),
    finalityFallback: FINALITY_FALLBACK[id],
    logRange: integer(read(`${prefix}_LOG_RANGE`), `${prefix}_LOG_RANGE`, 1000, 1, 100_000),
    coldWalletAddress: address(read, `${prefix}_COLD_WALLET_ADDRESS`) ?? read("EVM_COLD_WALLET_ADDRESS"),
    sweeperContract: address(read, `${prefix}_SWEEPER_CONTRACT`) ?? read("EVM_SWEEPER_CONTRACT"),
  };
}

function sweepMode(raw: string | undefined): EvmSweepMode {
  if (raw === undefined) return "topup";
  if (!(EVM_SWEEP_MODES as readonly string[]).includes(raw))
    throw new ConfigError("EVM_SWEEP_MODE", `must be one of ${EVM_SWEEP_MODES.join(", ")}, got "${raw}"`);
  return raw as EvmSweepMode;
}

/** The account-level EVM xpub (m/44'/60'/0') of a mnemonic. */
export function mnemonicToEvmXpub(mnemonic: string): string {
  return HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive("m/44'/60'/0'").publicExtendedKey;
}

function evmXpub(
  read: ReadVariable,
  walletMnemonic: string | undefined,
  needed: boolean,
): string | undefined {
  const given = read("EVM_WALLET_XPUB");
  if (given !== undefined) {
    let depth: number;
    try {
      depth = HDKey.fromExtendedKey(given).depth;
    } catch {
      throw new ConfigError("EVM_WALLET_XPUB", "is not a valid xpub");
    }
    if (!given.startsWith("xpub") || depth !== 3)
      throw new ConfigError("EVM_WALLET_XPUB", "is not an account-level xpub (m/44'/60'/0')");
    if (walletMnemonic !== undefined && mnemonicToEvmXpub(walletMnemonic) !== given)
      throw new ConfigError("EVM_WALLET_XPUB", "does not belong to WALLET_MNEMONIC");
    return given;
  }
  // Deriving from a mnemonic costs a key stretch: only where an EVM chain needs the xpub.
  if (!needed) return undefined;
  if (walletMnemonic !== undefined) return mnemonicToEvmXpub(walletMnemonic);
  throw new ConfigError("EVM_WALLET_XPUB", "is required while an EVM chain is enabled (or WALLET_MNEMONIC)");
  return undefined;
}

/**
 * Which families' wallets SWEEP_ENABLED needs (config/wallets.ts): TRON's where TRON is enabled;
 * otherwise the EVM hot wallet (key or address) and a cold wallet for every enabled EVM chain. The
 * values themselves are checked by chainsConfig.
 */
export function sweepFamilies(read: ReadVariable): SweepFamilies {
  const chains = chainList(read("CHAINS"));
  const evmIds = chains.filter((id) => Object.hasOwn(EVM_TESTNETS, id));
  const hot = read("EVM_HOT_WALLET_ADDRESS") ?? read("EVM_HOT_WALLET_PRIVATE_KEY");
  const cold =
    read("EVM_COLD_WALLET_ADDRESS") !== undefined ||
    evmIds.every((id) => read(`${id.toUpperCase()}_COLD_WALLET_ADDRESS`) !== undefined);
  return {
    tronEnabled: chains.includes("tron"),
    evmWalletsSet: evmIds.length > 0 && hot !== undefined && cold,
  };
}

export function chainsConfig(
  read: ReadVariable,
  isProduction: boolean,
  walletMnemonic: string | undefined,
): ChainsConfig {
  const chains = chainList(read("CHAINS"));
  const evmIds = chains.filter((id): id is Exclude<ChainId, "tron"> => Object.hasOwn(EVM_TESTNETS, id));
  const coldWalletAddress = address(read, "EVM_COLD_WALLET_ADDRESS");
  const hotWalletAddress = address(read, "EVM_HOT_WALLET_ADDRESS");
  const key = read("EVM_HOT_WALLET_PRIVATE_KEY");
  if (key !== undefined && !/^(0x)?[0-9a-fA-F]{64}$/.test(key))
    throw new ConfigError("EVM_HOT_WALLET_PRIVATE_KEY", "must be 32 bytes of hex");
  // Only an enabled chain's variables are read: a disabled chain's half-written settings do not stop start-up.
  const evmChains = evmIds.map((id) => Object.freeze(evmChain(read, id, isProduction)));
  return {
    chains: Object.freeze(chains),
    evmChains: Object.freeze(evmChains),
    evmWallet: Object.freeze({
      xpub: evmXpub(read, walletMnemonic, evmIds.length > 0),
      hotWalletPrivateKey: key?.replace(/^0x/, ""),
      hotWalletAddress,
      coldWalletAddress,
      sweepMode: sweepMode(read("EVM_SWEEP_MODE")),
      sweeperContract: address(read, "EVM_SWEEPER_CONTRACT"),
    }),
  };
}
