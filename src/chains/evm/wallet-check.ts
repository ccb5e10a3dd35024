/**
 * What the configuration cannot check without the EVM toolkit: every EVM address variable's EIP-55
 * checksum (where written in mixed case) and that EVM_HOT_WALLET_ADDRESS is the address of
 * EVM_HOT_WALLET_PRIVATE_KEY. Run when the chains are built, so start-up stops naming the variable.
 */
import { computeAddress } from "ethers";
import type { Config } from "../../config.js";
import { ConfigError } from "../../config/env-values.js";
import { evmAddressFormat } from "./address.js";

function checked(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const stored = evmAddressFormat.normalise(value);
  if (stored === undefined)
    throw new ConfigError(name, "has a wrong EIP-55 checksum (check the address's letters' case)");
  return stored;
}

/** The hot wallet's address (stored form): EVM_HOT_WALLET_ADDRESS, or the key's. */
export function checkEvmWallet(config: Config): { hotWalletAddress: string | undefined } {
  // First: each chain's cold wallet defaults to it.
  checked("EVM_COLD_WALLET_ADDRESS", config.evmWallet.coldWalletAddress);
  for (const chain of config.evmChains) {
    const prefix = chain.id.toUpperCase();
    checked(`${prefix}_USDT_CONTRACT`, chain.usdtContract);
    checked(`${prefix}_USDC_CONTRACT`, chain.usdcContract);
    checked(`${prefix}_COLD_WALLET_ADDRESS`, chain.coldWalletAddress);
  }
  const given = checked("EVM_HOT_WALLET_ADDRESS", config.evmWallet.hotWalletAddress);
  const key = config.evmWallet.hotWalletPrivateKey;
  let keyAddress: string | undefined;
  if (key !== undefined) {
    try {
      keyAddress = computeAddress("0x" + key).toLowerCase();
    } catch {
      throw new ConfigError("EVM_HOT_WALLET_PRIVATE_KEY", "is not a valid secp256k1 private key");
    }
  }
  if (given !== undefined && keyAddress !== undefined && given !== keyAddress)
    throw new ConfigError(
      "EVM_HOT_WALLET_ADDRESS",
      `is ${evmAddressFormat.display(given)} but EVM_HOT_WALLET_PRIVATE_KEY belongs to ${evmAddressFormat.display(keyAddress)}; they must name the same wallet`,
    );
  return { hotWalletAddress: given ?? keyAddress };
}
