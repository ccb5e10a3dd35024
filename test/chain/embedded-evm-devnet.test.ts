/**
 * The embedded demo's chains (`npm start` with nothing configured): TRON's devnet and, with CHAINS
 * unset, an Anvil devnet for `ethereum` beside it; any EVM chain on `devnet` without an endpoint
 * gets one; the EVM chain survives a restart from DATA_DIR as TRON's does.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmbeddedDevnets } from "../../src/chains/embedded-devnets.js";
import { loadConfig, type Env } from "../../src/config.js";
import { TEST_MNEMONIC, TEST_SECRETS } from "../helpers/config.js";

const warn = (message: string) => {
  throw new Error(`unexpected warning: ${message}`);
};

function demoEnv(extra: Env = {}): Env {
  return {
    NODE_ENV: "test",
    DATA_DIR: mkdtempSync(join(tmpdir(), "stablegate-demo-chains-")),
    ...TEST_SECRETS,
    WALLET_MNEMONIC: TEST_MNEMONIC,
    LOG_LEVEL: "silent",
    DEVNET_BLOCK_TIME_MS: "0",
    ...extra,
  };
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: T }).result;
}

describe("the embedded demo's chains", () => {
  it("runs ethereum on Anvil beside tron when CHAINS is unset, and keeps its chain across restarts", async () => {
    const env = demoEnv();
    const first = await startEmbeddedDevnets(loadConfig(env), env, warn);
    let hash: string;
    try {
      expect(first.tron).toBeDefined();
      expect(first.config.chains).toEqual(["tron", "ethereum"]);
      const [eth] = first.evm;
      expect(first.evm.map((d) => d.chain)).toEqual(["ethereum"]);
      const configured = first.config.evmChains[0];
      expect(configured).toMatchObject({ id: "ethereum", network: "devnet", rpcUrls: [eth?.devnet.rpcUrl] });
      expect(configured?.usdtContract).toBe(eth?.devnet.usdtContract);
      expect(configured?.usdcContract).toBe(eth?.devnet.usdcContract);
      const info = JSON.parse(readFileSync(join(env.DATA_DIR as string, "devnet-ethereum.json"), "utf8"));
      expect(info).toMatchObject({ chain: "ethereum", rpc_url: eth?.devnet.rpcUrl, chain_id: 31337 });
      const head = await eth?.devnet.mine(3);
      hash = (
        await rpc<{ hash: string }>(eth?.devnet.rpcUrl as string, "eth_getBlockByNumber", [
          "0x" + head?.toString(16),
          false,
        ])
      ).hash;
    } finally {
      await first.close();
    }
    expect(existsSync(join(env.DATA_DIR as string, "devnet-ethereum.json"))).toBe(false);

    const second = await startEmbeddedDevnets(loadConfig(env), env, warn);
    try {
      const url = second.evm[0]?.devnet.rpcUrl as string;
      const n = Number(await rpc<string>(url, "eth_blockNumber"));
      expect(n).toBeGreaterThanOrEqual(4);
      expect(
        (await rpc<{ hash: string }>(url, "eth_getBlockByNumber", ["0x" + n.toString(16), false])).hash,
      ).toBe(hash);
    } finally {
      await second.close();
    }
  });

  it("starts one for each EVM devnet chain without an endpoint (BSC's USDT has 18 decimals), none with CHAINS=tron", async () => {
    const tronOnly = demoEnv({ CHAINS: "tron" });
    const plain = await startEmbeddedDevnets(loadConfig(tronOnly), tronOnly, warn);
    try {
      expect(plain.evm).toEqual([]);
      expect(plain.config.chains).toEqual(["tron"]);
    } finally {
      await plain.close();
    }

    const env = demoEnv({ CHAINS: "tron,bsc" });
    const started = await startEmbeddedDevnets(loadConfig(env), env, warn);
    try {
      const [bsc] = started.evm;
      expect(bsc?.chain).toBe("bsc");
      expect(bsc?.devnet.chainId).toBe(31338);
      expect(started.config.evmChains[0]?.usdtContract).toBe(bsc?.devnet.usdt18Contract);
    } finally {
      await started.close();
    }
  });
});
