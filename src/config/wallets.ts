/**
 * The wallets' variables checked together (DESIGN.md 2): the deposit wallet (WALLET_MNEMONIC and/or
 * WALLET_XPUB), the hot wallet (HOT_WALLET_PRIVATE_KEY and/or HOT_WALLET_ADDRESS), the cold wallet,
 * and whether sweeping is on. Each pair must name one wallet, so no role watches one wallet while
 * another spends from a different one. src/config.ts reads the variables and passes their values.
 */
import { HDKey } from "@scure/bip32";
import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { addressFromPrivateKey, isValidAddress } from "@stablegate/tron/address";
import { mnemonicToAccountXpub } from "@stablegate/tron/hd";
import type { DevSecrets } from "./dev-secrets.js";
import { boolean, ConfigError } from "./env-values.js";

/** The variables' values as set (undefined when unset). */
export interface WalletVariables {
  WALLET_MNEMONIC: string | undefined;
  WALLET_XPUB: string | undefined;
  HOT_WALLET_PRIVATE_KEY: string | undefined;
  HOT_WALLET_ADDRESS: string | undefined;
  COLD_WALLET_ADDRESS: string | undefined;
  SWEEP_ENABLED: string | undefined;
}

export interface Wallets {
  walletXpub: string;
  walletMnemonic: string | undefined;
  /** Hex without 0x. */
  hotWalletPrivateKey: string | undefined;
  /** HOT_WALLET_ADDRESS, or the key's address; the same on every role. */
  hotWalletAddress: string | undefined;
  coldWalletAddress: string | undefined;
  sweepEnabled: boolean;
}

/**
 * Which families' wallets sweeping needs: TRON's where TRON is enabled; where only EVM chains are,
 * the EVM hot wallet (key or address) and a cold wallet, so an EVM-only deployment sets no TRON
 * wallet to sweep.
 */
export interface SweepFamilies {
  tronEnabled: boolean;
  evmWalletsSet: boolean;
}

/** `dev` fills in what development leaves unset (undefined in production). */
export function checkWallets(
  vars: WalletVariables,
  dev: DevSecrets | undefined,
  families: SweepFamilies = { tronEnabled: true, evmWalletsSet: false },
): Wallets {
  const { walletMnemonic, walletXpub } = depositWallet(vars, dev);
  const { hotWalletPrivateKey, hotWalletAddress } = hotWallet(vars, dev);
  const coldWalletAddress = vars.COLD_WALLET_ADDRESS ?? dev?.cold_wallet_address;
  if (coldWalletAddress !== undefined && !isValidAddress(coldWalletAddress)) {
    throw new ConfigError("COLD_WALLET_ADDRESS", "is not a valid TRON address");
  }
  const bothWallets = families.tronEnabled
    ? hotWalletAddress !== undefined && coldWalletAddress !== undefined
    : families.evmWalletsSet;
  const sweepEnabled = boolean(vars.SWEEP_ENABLED, "SWEEP_ENABLED", bothWallets);
  if (sweepEnabled && !bothWallets) {
    throw new ConfigError(
      "SWEEP_ENABLED",
      families.tronEnabled
        ? "needs COLD_WALLET_ADDRESS and HOT_WALLET_ADDRESS (or HOT_WALLET_PRIVATE_KEY)"
        : "needs EVM_COLD_WALLET_ADDRESS (or each chain's _COLD_WALLET_ADDRESS) and EVM_HOT_WALLET_ADDRESS (or EVM_HOT_WALLET_PRIVATE_KEY)",
    );
  }
  return {
    walletXpub,
    walletMnemonic,
    hotWalletPrivateKey: hotWalletPrivateKey?.replace(/^0x/, ""),
    hotWalletAddress,
    coldWalletAddress,
    sweepEnabled,
  };
}

function depositWallet(
  vars: WalletVariables,
  dev: DevSecrets | undefined,
): { walletMnemonic: string | undefined; walletXpub: string } {
  const walletMnemonic = vars.WALLET_MNEMONIC ?? (vars.WALLET_XPUB ? undefined : dev?.wallet_mnemonic);
  if (walletMnemonic !== undefined && !validateMnemonic(walletMnemonic, wordlist)) {
    throw new ConfigError("WALLET_MNEMONIC", "is not a valid BIP39 English mnemonic");
  }
  const walletXpub = vars.WALLET_XPUB ?? (walletMnemonic ? mnemonicToAccountXpub(walletMnemonic) : undefined);
  if (walletXpub === undefined)
    throw new ConfigError("WALLET_XPUB", "is required in production (or WALLET_MNEMONIC)");
  if (!isAccountXpub(walletXpub)) {
    throw new ConfigError("WALLET_XPUB", "is not an account-level xpub (m/44'/195'/0')");
  }
  // Sweeps sign with keys from the mnemonic: an xpub of another seed would show addresses whose funds
  // the service can never move.
  if (vars.WALLET_XPUB && walletMnemonic && mnemonicToAccountXpub(walletMnemonic) !== walletXpub) {
    throw new ConfigError("WALLET_XPUB", "does not belong to WALLET_MNEMONIC");
  }
  return { walletMnemonic, walletXpub };
}

function hotWallet(
  vars: WalletVariables,
  dev: DevSecrets | undefined,
): { hotWalletPrivateKey: string | undefined; hotWalletAddress: string | undefined } {
  const givenHotAddress = vars.HOT_WALLET_ADDRESS;
  if (givenHotAddress !== undefined && !isValidAddress(givenHotAddress)) {
    throw new ConfigError("HOT_WALLET_ADDRESS", "is not a valid TRON address");
  }
  const hotWalletPrivateKey =
    vars.HOT_WALLET_PRIVATE_KEY ?? (givenHotAddress ? undefined : dev?.hot_wallet_private_key);
  if (hotWalletPrivateKey !== undefined && !/^(0x)?[0-9a-fA-F]{64}$/.test(hotWalletPrivateKey)) {
    throw new ConfigError("HOT_WALLET_PRIVATE_KEY", "must be 32 bytes of hex");
  }
  let keyAddress: string | undefined;
  try {
    keyAddress = hotWalletPrivateKey
      ? addressFromPrivateKey(hotWalletPrivateKey.replace(/^0x/, ""))
      : undefined;
  } catch {
    throw new ConfigError("HOT_WALLET_PRIVATE_KEY", "is not a valid secp256k1 private key");
  }
  // The api tier shows and alerts on HOT_WALLET_ADDRESS while the workers pay from the key: a
  // mismatch would watch one wallet and spend from another.
  if (givenHotAddress !== undefined && keyAddress !== undefined && givenHotAddress !== keyAddress) {
    throw new ConfigError(
      "HOT_WALLET_ADDRESS",
      `is ${givenHotAddress} but HOT_WALLET_PRIVATE_KEY belongs to ${keyAddress}; they must name the same wallet`,
    );
  }
  return { hotWalletPrivateKey, hotWalletAddress: givenHotAddress ?? keyAddress };
}

/** A well-formed xpub (checksum included) at depth 3, the account level of BIP44. */
function isAccountXpub(value: string): boolean {
  if (!/^xpub[1-9A-HJ-NP-Za-km-z]{100,112}$/.test(value)) return false;
  try {
    return HDKey.fromExtendedKey(value).depth === 3;
  } catch {
    return false;
  }
}

/**
 * Refuses to start a process that runs the sweeper without what signing needs. Only such processes
 * (roles worker and all) call it: an api process reports and accepts sweeps with the public values.
 */
export function checkSweeperSecrets(config: {
  sweepEnabled: boolean;
  walletMnemonic: string | undefined;
  hotWalletPrivateKey: string | undefined;
  chains?: readonly string[];
  evmWallet?: { hotWalletPrivateKey: string | undefined };
}): void {
  if (!config.sweepEnabled) return;
  if (config.walletMnemonic === undefined) {
    throw new ConfigError(
      "WALLET_MNEMONIC",
      "is required on worker processes while SWEEP_ENABLED is true (they sign sweeps)",
    );
  }
  if (config.chains !== undefined && !config.chains.includes("tron")) {
    if (config.evmWallet?.hotWalletPrivateKey === undefined) {
      throw new ConfigError(
        "EVM_HOT_WALLET_PRIVATE_KEY",
        "is required on worker processes while SWEEP_ENABLED is true (it pays the sweep fees)",
      );
    }
    return;
  }
  if (config.hotWalletPrivateKey === undefined) {
    throw new ConfigError(
      "HOT_WALLET_PRIVATE_KEY",
      "is required on worker processes while SWEEP_ENABLED is true (it pays the sweep fees)",
    );
  }
}
