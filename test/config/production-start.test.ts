/**
 * The real entry point refuses to start in production with a missing variable: exit status non-zero
 * and a message naming the variable, before anything listens or touches DATA_DIR.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { mnemonicToAccountXpub } from "@stablegate/tron/hd";
import { TEST_MNEMONIC } from "../helpers/config.js";

const ROOT = resolve(import.meta.dirname, "../..");

function serve(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      "npx",
      ["tsx", "src/main.ts", "serve"],
      {
        cwd: ROOT,
        // A clean environment: nothing of the test runner's leaks in.
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

function productionEnv(dataDir: string): Record<string, string> {
  return {
    NODE_ENV: "production",
    DATA_DIR: dataDir,
    TRON_NETWORK: "mainnet",
    ADMIN_PASSWORD: "a long operator password",
    SESSION_SECRET: "0123456789abcdef0123456789abcdef",
    API_KEY_PEPPER: "fedcba9876543210fedcba9876543210",
    WALLET_XPUB: mnemonicToAccountXpub(TEST_MNEMONIC),
    PORT: "0",
    HOST: "127.0.0.1",
  };
}

describe("stablegate serve in production", () => {
  it.each(["ADMIN_PASSWORD", "SESSION_SECRET"])(
    "exits non-zero naming %s when it is missing",
    async (variable) => {
      const dataDir = mkdtempSync(join(tmpdir(), "stablegate-prod-"));
      const env = productionEnv(dataDir);
      delete env[variable];
      const result = await serve(env);
      expect(result.code).not.toBe(0);
      expect(result.code).not.toBeNull();
      expect(result.stderr).toContain(`configuration error: ${variable}`);
      expect(result.stdout).not.toContain("ready");
      // Nothing was generated or opened.
      expect(readdirSync(dataDir)).toEqual([]);
      expect(existsSync(join(dataDir, "secrets.json"))).toBe(false);
    },
    60_000,
  );

  it("exits non-zero naming TRON_NETWORK when it is devnet", async () => {
    const env = productionEnv(mkdtempSync(join(tmpdir(), "stablegate-prod-")));
    const result = await serve({ ...env, TRON_NETWORK: "devnet" });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("TRON_NETWORK");
  }, 60_000);
});
