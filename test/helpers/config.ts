import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "../../src/config.js";

export const TEST_ADMIN_PASSWORD = "correct horse battery staple";
export const TEST_MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

/** The fixed secrets every test service runs with. */
export const TEST_SECRETS = {
  ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
  SESSION_SECRET: "test-session-secret-0123456789abcdef0123456789",
  API_KEY_PEPPER: "test-api-key-pepper-0123456789abcdef0123456789",
};

/** The settings that point a service at a devnet (a `Devnet` has both fields). */
export function devnetEnv(devnet: { url: string; usdtContract: string }) {
  return { TRON_NETWORK: "devnet", TRON_NODE_URL: devnet.url, USDT_CONTRACT: devnet.usdtContract };
}

/** A development config with fixed secrets and a throwaway DATA_DIR; `env` overrides anything. */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    NODE_ENV: "test",
    DATA_DIR: mkdtempSync(join(tmpdir(), "stablegate-test-")),
    ...TEST_SECRETS,
    WALLET_MNEMONIC: TEST_MNEMONIC,
    TRON_NETWORK: "devnet",
    TRON_NODE_URL: "http://127.0.0.1:1",
    USDT_CONTRACT: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    LOG_LEVEL: "silent",
    ...env,
  });
}
