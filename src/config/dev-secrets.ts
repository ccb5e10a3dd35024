/**
 * Secrets for development (never in production): whatever the environment does not give is
 * generated once and kept in DATA_DIR/secrets.json (mode 0600), so a restart keeps the same admin
 * password, API keys and, above all, the same wallet.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { ConfigError, type ReadVariable } from "./env-values.js";

/** Secrets generated for development and kept in DATA_DIR/secrets.json (mode 0600). */
export interface DevSecrets {
  admin_password: string;
  session_secret: string;
  api_key_pepper: string;
  wallet_mnemonic: string;
  hot_wallet_private_key: string;
  cold_wallet_address: string;
}

/** The variables that replace each generated secret (WALLET_XPUB makes the mnemonic unnecessary). */
const DEV_SECRET_ENV: Record<keyof DevSecrets, readonly string[]> = {
  admin_password: ["ADMIN_PASSWORD"],
  session_secret: ["SESSION_SECRET"],
  api_key_pepper: ["API_KEY_PEPPER"],
  wallet_mnemonic: ["WALLET_MNEMONIC", "WALLET_XPUB"],
  hot_wallet_private_key: ["HOT_WALLET_PRIVATE_KEY", "HOT_WALLET_ADDRESS"],
  cold_wallet_address: ["COLD_WALLET_ADDRESS"],
};

/** Reads DATA_DIR/secrets.json, generating and persisting whatever the environment does not give. */
export function devSecrets(dataDir: string, read: ReadVariable): DevSecrets {
  const file = join(dataDir, "secrets.json");
  let stored: Partial<DevSecrets> = {};
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, "utf8")) as Partial<DevSecrets>;
    } catch {
      throw new ConfigError("DATA_DIR", `${file} is not valid JSON; fix or delete it`);
    }
  }
  const coldKey = randomBytes(32);
  const generated: DevSecrets = {
    admin_password: stored.admin_password ?? randomBytes(12).toString("base64url"),
    session_secret: stored.session_secret ?? randomBytes(32).toString("base64url"),
    api_key_pepper: stored.api_key_pepper ?? randomBytes(32).toString("base64url"),
    wallet_mnemonic: stored.wallet_mnemonic ?? generateMnemonic(wordlist, 256),
    hot_wallet_private_key: stored.hot_wallet_private_key ?? randomBytes(32).toString("hex"),
    cold_wallet_address: stored.cold_wallet_address ?? addressFromPrivateKey(coldKey),
  };
  coldKey.fill(0);
  // Persist whenever a freshly generated value is actually used (no variable overrides it), so the
  // next start gets the same one: a wallet mnemonic that changed on restart would strand deposits.
  const usedGenerated = (Object.keys(generated) as (keyof DevSecrets)[]).some(
    (key) => stored[key] === undefined && DEV_SECRET_ENV[key].every((name) => read(name) === undefined),
  );
  if (usedGenerated) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(generated, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  }
  return generated;
}
