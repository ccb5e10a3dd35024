/**
 * The chains' variables: CHAINS, each EVM chain's prefixed variables and the shared EVM wallet.
 * Checksums and the hot wallet key's address are checked when the chains are built (createChains).
 */
import { describe, expect, it } from "vitest";
import { mnemonicToAccount } from "viem/accounts";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { ConfigError } from "../../src/config.js";
import { createChains } from "../../src/chains/create-chains.js";
import { createLogger } from "../../src/logger.js";
import { createMetrics } from "../../src/metrics/metrics.js";
import { systemClock } from "../../src/clock.js";
import { testConfig, TEST_MNEMONIC } from "../helpers/config.js";

function refused(env: Record<string, string | undefined>): ConfigError {
  try {
    testConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("the configuration was accepted");
}

const PROD = {
  NODE_ENV: "production",
  ADMIN_PASSWORD: "a-long-enough-password",
  TRON_NETWORK: "mainnet",
  WALLET_MNEMONIC: undefined,
  WALLET_XPUB: HDKey.fromMasterSeed(mnemonicToSeedSync(TEST_MNEMONIC)).derive("m/44'/195'/0'")
    .publicExtendedKey,
  USDT_CONTRACT: undefined,
  TRON_NODE_URL: undefined,
};
const EVM_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync(TEST_MNEMONIC)).derive(
  "m/44'/60'/0'",
).publicExtendedKey;

describe("CHAINS and the EVM chains' variables", () => {
  it("leaves TRON alone when CHAINS is unset", () => {
    const config = testConfig();
    expect(config.chains).toEqual(["tron"]);
    expect(config.evmChains).toEqual([]);
    expect(config.evmWallet.xpub).toBeUndefined();
  });

  it("gives BSC's finalized tag a fallback depth, and no other chain one", () => {
    const config = testConfig({
      CHAINS: "bsc,polygon",
      BSC_NETWORK: "testnet",
      BSC_RPC_URL: "https://bsc.example",
      BSC_USDT_CONTRACT: "0x55d398326f99059fF775485246999027B3197955",
      POLYGON_RPC_URL: "https://polygon.example",
      POLYGON_USDC_CONTRACT: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
      POLYGON_NETWORK: "amoy",
      WALLET_MNEMONIC: TEST_MNEMONIC,
    });
    expect(config.evmChains.map((c) => [c.id, c.finality, c.finalityFallback])).toEqual([
      ["bsc", "finalized", 120],
      ["polygon", "finalized", undefined],
    ]);
  });

  it("fills in mainnet contracts and finality, and derives the EVM xpub from WALLET_MNEMONIC", () => {
    const config = testConfig({
      ...PROD,
      WALLET_MNEMONIC: TEST_MNEMONIC,
      WALLET_XPUB: undefined,
      CHAINS: "tron, ethereum,base",
      ETHEREUM_NETWORK: "mainnet",
      ETHEREUM_RPC_URL: "https://eth.example/key1,https://eth2.example",
      BASE_NETWORK: "mainnet",
      BASE_RPC_URL: "https://base.example",
      BASE_FINALITY: "12",
      EVM_COLD_WALLET_ADDRESS: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    });
    expect(config.chains).toEqual(["tron", "ethereum", "base"]);
    const [eth, base] = config.evmChains;
    expect(eth).toMatchObject({
      id: "ethereum",
      network: "mainnet",
      rpcUrls: ["https://eth.example/key1", "https://eth2.example"],
      usdtContract: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
      usdcContract: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
      finality: "finalized",
      finalityFallback: undefined,
      logRange: 1000,
      coldWalletAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    });
    expect(base).toMatchObject({ id: "base", usdtContract: undefined, finality: 12 });
    expect(base?.usdcContract).toBe("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    expect(config.evmWallet.xpub).toBe(EVM_XPUB);
    // The xpub's first address is the mnemonic's m/44'/60'/0'/0/0 as viem derives it.
    const chains = createChains(config, {
      log: createLogger({ level: "silent" }),
      metrics: createMetrics(),
      clock: systemClock,
    });
    const ethereum = chains.registry.get("ethereum");
    expect(ethereum?.derivation.deriveAddress(EVM_XPUB, 0, 0)).toBe(
      mnemonicToAccount(TEST_MNEMONIC).address.toLowerCase(),
    );
    expect(chains.registry.list.map((c) => c.id)).toEqual(["tron", "ethereum", "base"]);
  });

  it.each([
    [{ CHAINS: "tron,solana" }, "CHAINS"],
    [{ CHAINS: "tron,tron" }, "CHAINS"],
    [{ CHAINS: "ethereum", ETHEREUM_NETWORK: "ropsten" }, "ETHEREUM_NETWORK"],
    [{ CHAINS: "ethereum", ETHEREUM_NETWORK: "mainnet" }, "ETHEREUM_RPC_URL"],
    [{ CHAINS: "bsc", BSC_NETWORK: "testnet", BSC_RPC_URL: "https://bsc.example" }, "BSC_USDT_CONTRACT"],
    [{ CHAINS: "ethereum", ETHEREUM_RPC_URL: "ftp://x" }, "ETHEREUM_RPC_URL"],
    [{ CHAINS: "ethereum", ETHEREUM_FINALITY: "safe" }, "ETHEREUM_FINALITY"],
    [{ CHAINS: "ethereum", ETHEREUM_FINALITY: "0" }, "ETHEREUM_FINALITY"],
    [{ CHAINS: "ethereum", ETHEREUM_USDC_CONTRACT: "0x1234" }, "ETHEREUM_USDC_CONTRACT"],
    [{ CHAINS: "ethereum", EVM_HOT_WALLET_PRIVATE_KEY: "abc" }, "EVM_HOT_WALLET_PRIVATE_KEY"],
    [{ CHAINS: "ethereum", EVM_WALLET_XPUB: "xpub-nonsense" }, "EVM_WALLET_XPUB"],
    [{ CHAINS: "ethereum", WALLET_MNEMONIC: undefined, WALLET_XPUB: PROD.WALLET_XPUB }, "EVM_WALLET_XPUB"],
  ])("refuses %o naming %s", (env, variable) => {
    expect(refused(env).variable).toBe(variable);
  });

  it("refuses an EVM devnet in production", () => {
    const error = refused({
      ...PROD,
      CHAINS: "tron,polygon",
      POLYGON_NETWORK: "devnet",
      EVM_WALLET_XPUB: EVM_XPUB,
    });
    expect(error.variable).toBe("POLYGON_NETWORK");
    expect(error.message).toMatch(/devnet is refused in production/);
  });

  it("refuses an EVM xpub of another seed than WALLET_MNEMONIC", () => {
    const other = HDKey.fromMasterSeed(new Uint8Array(32).fill(7)).derive("m/44'/60'/0'").publicExtendedKey;
    expect(refused({ CHAINS: "ethereum", EVM_WALLET_XPUB: other }).variable).toBe("EVM_WALLET_XPUB");
  });

  it("checks checksums and the hot wallet's key when the chains are built", () => {
    const deps = () => ({
      log: createLogger({ level: "silent" }),
      metrics: createMetrics(),
      clock: systemClock,
    });
    const build = (env: Record<string, string>) => {
      try {
        createChains(
          testConfig({ CHAINS: "tron,ethereum", ETHEREUM_RPC_URL: "http://127.0.0.1:1", ...env }),
          deps(),
        );
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).variable;
      }
      return "accepted";
    };
    // Anvil's first account: its key and its address.
    const key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    expect(
      build({
        EVM_HOT_WALLET_PRIVATE_KEY: key,
        EVM_HOT_WALLET_ADDRESS: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      }),
    ).toBe("accepted");
    expect(
      build({
        EVM_HOT_WALLET_PRIVATE_KEY: key,
        EVM_HOT_WALLET_ADDRESS: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
      }),
    ).toBe("EVM_HOT_WALLET_ADDRESS");
    expect(build({ EVM_COLD_WALLET_ADDRESS: "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266" })).toBe(
      "EVM_COLD_WALLET_ADDRESS",
    );
    expect(build({ ETHEREUM_USDT_CONTRACT: "0xdac17f958d2ee523a2206206994597c13d831eC7" })).toBe(
      "ETHEREUM_USDT_CONTRACT",
    );
    const error = (() => {
      try {
        createChains(
          testConfig({
            CHAINS: "tron,ethereum",
            ETHEREUM_RPC_URL: "http://127.0.0.1:1",
            EVM_HOT_WALLET_PRIVATE_KEY: key,
            EVM_HOT_WALLET_ADDRESS: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
          }),
          deps(),
        );
      } catch (e) {
        return String(e);
      }
      return "";
    })();
    expect(error).not.toContain(key.slice(2));
  });
});
