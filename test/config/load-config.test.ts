import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { describe, expect, it } from "vitest";
import { checkSweeperSecrets, ConfigError, loadConfig } from "../../src/config.js";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { mnemonicToAccountXpub } from "@stablegate/tron/hd";
import { mnemonicToEvmXpub } from "../../src/config/evm.js";
import { TEST_MNEMONIC } from "../helpers/config.js";

const tempDir = () => mkdtempSync(join(tmpdir(), "stablegate-config-"));

function secretsFile(dir: string): Record<string, string> {
  return JSON.parse(readFileSync(join(dir, "secrets.json"), "utf8")) as Record<string, string>;
}

function expectConfigError(env: Record<string, string | undefined>, variable: string): ConfigError {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a ConfigError for ${variable}`).toBeInstanceOf(ConfigError);
  const error = caught as ConfigError;
  expect(error.variable).toBe(variable);
  expect(error.message).toContain(variable);
  return error;
}

describe("development secrets", () => {
  it("generates missing secrets once, keeps them in DATA_DIR/secrets.json with mode 0600, and reuses them", () => {
    const dir = tempDir();
    const first = loadConfig({ NODE_ENV: "development", DATA_DIR: dir });
    const file = join(dir, "secrets.json");
    expect(existsSync(file)).toBe(true);
    if (process.platform !== "win32") expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);

    const stored = secretsFile(dir);
    expect(stored.admin_password).toBe(first.adminPassword);
    expect(stored.session_secret).toBe(first.sessionSecret);
    expect(stored.api_key_pepper).toBe(first.apiKeyPepper);
    expect(first.adminPasswordGenerated).toBe(true);
    expect(first.adminPassword.length).toBeGreaterThanOrEqual(12);
    expect(Buffer.byteLength(first.sessionSecret)).toBeGreaterThanOrEqual(32);
    expect(Buffer.byteLength(first.apiKeyPepper)).toBeGreaterThanOrEqual(32);
    expect(first.tronNetwork).toBe("devnet");

    const before = readFileSync(file, "utf8");
    const second = loadConfig({ NODE_ENV: "development", DATA_DIR: dir });
    expect(second.adminPassword).toBe(first.adminPassword);
    expect(second.sessionSecret).toBe(first.sessionSecret);
    expect(second.apiKeyPepper).toBe(first.apiKeyPepper);
    expect(second.walletXpub).toBe(first.walletXpub);
    expect(second.walletMnemonic).toBe(first.walletMnemonic);
    expect(second.coldWalletAddress).toBe(first.coldWalletAddress);
    expect(second.hotWalletPrivateKey).toBe(first.hotWalletPrivateKey);
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("generates different secrets for different data directories", () => {
    const a = loadConfig({ NODE_ENV: "development", DATA_DIR: tempDir() });
    const b = loadConfig({ NODE_ENV: "development", DATA_DIR: tempDir() });
    expect(a.adminPassword).not.toBe(b.adminPassword);
    expect(a.sessionSecret).not.toBe(b.sessionSecret);
    expect(a.apiKeyPepper).not.toBe(b.apiKeyPepper);
  });

  it("uses an operator-supplied ADMIN_PASSWORD and marks it not generated", () => {
    const dir = tempDir();
    const config = loadConfig({
      NODE_ENV: "development",
      DATA_DIR: dir,
      ADMIN_PASSWORD: "operator chose this one",
    });
    expect(config.adminPassword).toBe("operator chose this one");
    expect(config.adminPasswordGenerated).toBe(false);
    expect(readFileSync(join(dir, "secrets.json"), "utf8")).not.toContain("operator chose this one");
  });

  it("prefers variables over stored secrets", () => {
    const dir = tempDir();
    loadConfig({ NODE_ENV: "development", DATA_DIR: dir });
    const config = loadConfig({
      NODE_ENV: "development",
      DATA_DIR: dir,
      SESSION_SECRET: "s".repeat(40),
      API_KEY_PEPPER: "p".repeat(40),
    });
    expect(config.sessionSecret).toBe("s".repeat(40));
    expect(config.apiKeyPepper).toBe("p".repeat(40));
  });

  it("persists the generated wallet even when the operator supplies every auth secret", () => {
    const dir = tempDir();
    const env = {
      NODE_ENV: "development",
      DATA_DIR: dir,
      ADMIN_PASSWORD: "operator password 123",
      SESSION_SECRET: "s".repeat(40),
      API_KEY_PEPPER: "p".repeat(40),
    };
    const first = loadConfig(env);
    const second = loadConfig(env);
    expect(second.walletXpub).toBe(first.walletXpub);
    expect(second.coldWalletAddress).toBe(first.coldWalletAddress);
  });

  it("writes nothing when the environment supplies every secret", () => {
    const dir = tempDir();
    loadConfig({
      NODE_ENV: "development",
      DATA_DIR: dir,
      ADMIN_PASSWORD: "operator password 123",
      SESSION_SECRET: "s".repeat(40),
      API_KEY_PEPPER: "p".repeat(40),
      WALLET_MNEMONIC: TEST_MNEMONIC,
      HOT_WALLET_PRIVATE_KEY: "11".repeat(32),
      COLD_WALLET_ADDRESS: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    });
    expect(existsSync(join(dir, "secrets.json"))).toBe(false);
  });

  it("refuses a corrupt secrets.json naming DATA_DIR instead of silently replacing it", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "secrets.json"), "{not json");
    expectConfigError({ NODE_ENV: "development", DATA_DIR: dir }, "DATA_DIR");
  });
});

describe("production start-up checks", () => {
  const xpub = mnemonicToAccountXpub(TEST_MNEMONIC);
  const valid = (): Record<string, string | undefined> => ({
    NODE_ENV: "production",
    DATA_DIR: tempDir(),
    TRON_NETWORK: "mainnet",
    ADMIN_PASSWORD: "a long operator password",
    SESSION_SECRET: "0123456789abcdef0123456789abcdef",
    API_KEY_PEPPER: "fedcba9876543210fedcba9876543210",
    WALLET_XPUB: xpub,
  });

  it("accepts a complete production configuration and generates nothing", () => {
    const env = valid();
    const config = loadConfig(env);
    expect(config.isProduction).toBe(true);
    expect(config.adminPasswordGenerated).toBe(false);
    expect(config.walletMnemonic).toBeUndefined();
    expect(config.sweepEnabled).toBe(false);
    expect(config.webhookAllowPrivateNetworks).toBe(false);
    expect(config.host).toBe("0.0.0.0");
    expect(existsSync(join(env.DATA_DIR as string, "secrets.json"))).toBe(false);
  });

  it.each(["ADMIN_PASSWORD", "SESSION_SECRET", "API_KEY_PEPPER", "WALLET_XPUB", "TRON_NETWORK"])(
    "refuses to start without %s, naming it",
    (variable) => {
      const env = valid();
      delete env[variable];
      const error = expectConfigError(env, variable);
      expect(error.message).toMatch(/required/);
    },
  );

  it.each(["ADMIN_PASSWORD", "SESSION_SECRET", "API_KEY_PEPPER"])(
    "treats a blank %s as missing",
    (variable) => {
      expectConfigError({ ...valid(), [variable]: "   " }, variable);
    },
  );

  it.each([
    ["ADMIN_PASSWORD", "short-pass1"],
    ["SESSION_SECRET", "x".repeat(31)],
    ["API_KEY_PEPPER", "x".repeat(31)],
    ["WALLET_XPUB", "xpub-not-really"],
    ["WALLET_XPUB", `${xpub.slice(0, -1)}${xpub.endsWith("A") ? "B" : "A"}`],
    ["WALLET_XPUB", HDKey.fromMasterSeed(mnemonicToSeedSync(TEST_MNEMONIC)).publicExtendedKey],
    ["WALLET_XPUB", HDKey.fromMasterSeed(mnemonicToSeedSync(TEST_MNEMONIC)).privateExtendedKey],
  ])("refuses a weak or malformed %s (%#)", (variable, value) => {
    expectConfigError({ ...valid(), [variable]: value }, variable);
  });

  it("accepts the minimum strengths: a 12-character password and 32-byte secrets", () => {
    expect(() =>
      loadConfig({
        ...valid(),
        ADMIN_PASSWORD: "x".repeat(12),
        SESSION_SECRET: "y".repeat(32),
        API_KEY_PEPPER: "z".repeat(32),
      }),
    ).not.toThrow();
  });

  it("refuses TRON_NETWORK=devnet in production", () => {
    const error = expectConfigError({ ...valid(), TRON_NETWORK: "devnet" }, "TRON_NETWORK");
    expect(error.message).toContain("devnet");
  });

  it("refuses an unknown TRON_NETWORK", () => {
    expectConfigError({ ...valid(), TRON_NETWORK: "testnet" }, "TRON_NETWORK");
  });

  it("accepts WALLET_MNEMONIC instead of WALLET_XPUB and derives the same xpub", () => {
    const env = valid();
    delete env.WALLET_XPUB;
    const config = loadConfig({ ...env, WALLET_MNEMONIC: TEST_MNEMONIC });
    expect(config.walletXpub).toBe(xpub);
  });

  it("refuses a WALLET_XPUB that does not belong to WALLET_MNEMONIC", () => {
    const other = mnemonicToAccountXpub(
      "legal winner thank year wave sausage worth useful legal winner thank yellow",
    );
    expectConfigError({ ...valid(), WALLET_XPUB: other, WALLET_MNEMONIC: TEST_MNEMONIC }, "WALLET_XPUB");
  });
});

describe("TRON_NODE_URL", () => {
  const base = { NODE_ENV: "test", DATA_DIR: "", TRON_NETWORK: "nile", LOG_LEVEL: "silent" };
  it("takes a comma-separated list: the preferred node first, then the fallbacks", () => {
    const config = loadConfig({
      ...base,
      DATA_DIR: tempDir(),
      TRON_NODE_URL: "http://10.0.0.5:8090/ , https://nile.trongrid.io",
    });
    expect(config.tronNodeUrls).toEqual(["http://10.0.0.5:8090", "https://nile.trongrid.io"]);
    expect(config.tronNodeUrl).toBe("http://10.0.0.5:8090");
  });

  it("defaults to the network's public node", () => {
    const config = loadConfig({ ...base, DATA_DIR: tempDir() });
    expect(config.tronNodeUrls).toEqual(["https://nile.trongrid.io"]);
  });

  it("refuses an empty entry, a non-http entry and a repeated URL without echoing the list", () => {
    for (const value of [
      "https://a.example,",
      "https://a.example,ftp://b.example",
      "https://a.example,https://a.example/",
    ]) {
      const error = expectConfigError(
        { ...base, DATA_DIR: tempDir(), TRON_NODE_URL: value },
        "TRON_NODE_URL",
      );
      expect(error.message).not.toContain("a.example");
    }
  });
});

describe("roles that tell the truth (DESIGN.md 2)", () => {
  const xpub = mnemonicToAccountXpub(TEST_MNEMONIC);
  const hotKey = "11".repeat(32);
  const hotAddress = addressFromPrivateKey(hotKey);
  const cold = addressFromPrivateKey("22".repeat(32));
  const production = (extra: Record<string, string | undefined>): Record<string, string | undefined> => ({
    NODE_ENV: "production",
    DATA_DIR: tempDir(),
    TRON_NETWORK: "mainnet",
    ADMIN_PASSWORD: "a long operator password",
    SESSION_SECRET: "0123456789abcdef0123456789abcdef",
    API_KEY_PEPPER: "fedcba9876543210fedcba9876543210",
    ...extra,
  });

  it("lets an api hold only WALLET_XPUB, HOT_WALLET_ADDRESS and COLD_WALLET_ADDRESS and still report sweeping", () => {
    const config = loadConfig(
      production({
        WALLET_XPUB: xpub,
        HOT_WALLET_ADDRESS: hotAddress,
        COLD_WALLET_ADDRESS: cold,
        SWEEP_ENABLED: "true",
        SWEEP_MODE: "burn",
      }),
    );
    expect(config.sweepEnabled).toBe(true);
    expect(config.hotWalletAddress).toBe(hotAddress);
    expect(config.hotWalletPrivateKey).toBeUndefined();
    expect(config.walletMnemonic).toBeUndefined();
    expect(() => checkSweeperSecrets(config)).toThrow(ConfigError);
  });

  it("enables sweeping by default when the hot wallet's address and the cold wallet are known", () => {
    const config = loadConfig(
      production({ WALLET_XPUB: xpub, HOT_WALLET_ADDRESS: hotAddress, COLD_WALLET_ADDRESS: cold }),
    );
    expect(config.sweepEnabled).toBe(true);
    expect(loadConfig(production({ WALLET_XPUB: xpub, COLD_WALLET_ADDRESS: cold })).sweepEnabled).toBe(false);
  });

  it("gives a worker with the mnemonic and the matching key everything signing needs", () => {
    const config = loadConfig(
      production({
        WALLET_MNEMONIC: TEST_MNEMONIC,
        HOT_WALLET_PRIVATE_KEY: hotKey,
        HOT_WALLET_ADDRESS: hotAddress,
        COLD_WALLET_ADDRESS: cold,
        SWEEP_ENABLED: "true",
      }),
    );
    expect(config.hotWalletAddress).toBe(hotAddress);
    expect(() => checkSweeperSecrets(config)).not.toThrow();
  });

  it("derives HOT_WALLET_ADDRESS from the key where only the key is set", () => {
    const config = loadConfig(production({ WALLET_XPUB: xpub, HOT_WALLET_PRIVATE_KEY: `0x${hotKey}` }));
    expect(config.hotWalletAddress).toBe(hotAddress);
  });

  it("refuses a key that does not belong to HOT_WALLET_ADDRESS, naming both variables and no key", () => {
    const error = expectConfigError(
      production({ WALLET_XPUB: xpub, HOT_WALLET_ADDRESS: cold, HOT_WALLET_PRIVATE_KEY: hotKey }),
      "HOT_WALLET_ADDRESS",
    );
    expect(error.message).toContain("HOT_WALLET_PRIVATE_KEY");
    expect(error.message).toContain(hotAddress);
    expect(error.message).not.toContain(hotKey);
  });

  it("refuses an invalid HOT_WALLET_ADDRESS and a key outside the curve", () => {
    expectConfigError(
      production({ WALLET_XPUB: xpub, HOT_WALLET_ADDRESS: "Tnotanaddress" }),
      "HOT_WALLET_ADDRESS",
    );
    expectConfigError(
      production({ WALLET_XPUB: xpub, HOT_WALLET_PRIVATE_KEY: "00".repeat(32) }),
      "HOT_WALLET_PRIVATE_KEY",
    );
  });

  it("refuses SWEEP_ENABLED without a hot wallet or a cold wallet", () => {
    expectConfigError(
      production({ WALLET_XPUB: xpub, COLD_WALLET_ADDRESS: cold, SWEEP_ENABLED: "true" }),
      "SWEEP_ENABLED",
    );
    expectConfigError(
      production({ WALLET_XPUB: xpub, HOT_WALLET_ADDRESS: hotAddress, SWEEP_ENABLED: "true" }),
      "SWEEP_ENABLED",
    );
  });

  it("names WALLET_MNEMONIC, then HOT_WALLET_PRIVATE_KEY, for a sweeping worker that lacks them", () => {
    const noMnemonic = loadConfig(
      production({ WALLET_XPUB: xpub, HOT_WALLET_PRIVATE_KEY: hotKey, COLD_WALLET_ADDRESS: cold }),
    );
    expect(() => checkSweeperSecrets(noMnemonic)).toThrow(/^WALLET_MNEMONIC: /);
    const noKey = loadConfig(
      production({
        WALLET_MNEMONIC: TEST_MNEMONIC,
        HOT_WALLET_ADDRESS: hotAddress,
        COLD_WALLET_ADDRESS: cold,
      }),
    );
    expect(() => checkSweeperSecrets(noKey)).toThrow(/^HOT_WALLET_PRIVATE_KEY: /);
    const off = loadConfig(production({ WALLET_XPUB: xpub, SWEEP_ENABLED: "false" }));
    expect(() => checkSweeperSecrets(off)).not.toThrow();
  });

  it("sweeps an EVM-only deployment with the EVM wallets alone, and names the EVM variables", () => {
    const evmKey = "22".repeat(32);
    const evmOnly = (extra: Record<string, string>) =>
      production({
        WALLET_XPUB: xpub,
        EVM_WALLET_XPUB: mnemonicToEvmXpub(TEST_MNEMONIC),
        CHAINS: "ethereum",
        ETHEREUM_NETWORK: "mainnet",
        ETHEREUM_RPC_URL: "https://eth.example",
        ...extra,
      });
    const evmCold = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const api = loadConfig(
      evmOnly({
        EVM_HOT_WALLET_ADDRESS: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        EVM_COLD_WALLET_ADDRESS: evmCold,
      }),
    );
    expect(api.sweepEnabled).toBe(true);
    expect(api.hotWalletAddress).toBeUndefined();
    expect(loadConfig(evmOnly({ ETHEREUM_COLD_WALLET_ADDRESS: evmCold })).sweepEnabled).toBe(false);
    const refused = expectConfigError(
      evmOnly({ EVM_COLD_WALLET_ADDRESS: evmCold, SWEEP_ENABLED: "true" }),
      "SWEEP_ENABLED",
    );
    expect(refused.message).toContain("EVM_HOT_WALLET_ADDRESS");
    const worker = loadConfig(
      evmOnly({
        WALLET_MNEMONIC: TEST_MNEMONIC,
        EVM_HOT_WALLET_PRIVATE_KEY: evmKey,
        ETHEREUM_COLD_WALLET_ADDRESS: evmCold,
      }),
    );
    expect(worker.sweepEnabled).toBe(true);
    expect(() => checkSweeperSecrets(worker)).not.toThrow();
    const keyless = loadConfig(
      evmOnly({
        WALLET_MNEMONIC: TEST_MNEMONIC,
        EVM_HOT_WALLET_ADDRESS: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        EVM_COLD_WALLET_ADDRESS: evmCold,
      }),
    );
    expect(() => checkSweeperSecrets(keyless)).toThrow(/^EVM_HOT_WALLET_PRIVATE_KEY: /);
  });

  it("generates no hot key in development when HOT_WALLET_ADDRESS is given", () => {
    const dir = tempDir();
    const config = loadConfig({ NODE_ENV: "development", DATA_DIR: dir, HOT_WALLET_ADDRESS: hotAddress });
    expect(config.hotWalletPrivateKey).toBeUndefined();
    expect(config.hotWalletAddress).toBe(hotAddress);
  });

  it("reads WORKER_LEASE_SECONDS as milliseconds, unset by default, and refuses one out of range", () => {
    expect(loadConfig(production({ WALLET_XPUB: xpub })).workerLeaseMs).toBeUndefined();
    expect(loadConfig(production({ WALLET_XPUB: xpub, WORKER_LEASE_SECONDS: "10" })).workerLeaseMs).toBe(
      10_000,
    );
    for (const bad of ["4", "3601", "1.5", "ten"]) {
      expect(() => loadConfig(production({ WALLET_XPUB: xpub, WORKER_LEASE_SECONDS: bad }))).toThrow(
        /^WORKER_LEASE_SECONDS: /,
      );
    }
  });

  it("reads METRICS_TOKEN", () => {
    expect(loadConfig(production({ WALLET_XPUB: xpub })).metricsToken).toBeUndefined();
    expect(loadConfig(production({ WALLET_XPUB: xpub, METRICS_TOKEN: "scrape-me-0123" })).metricsToken).toBe(
      "scrape-me-0123",
    );
  });
});
