import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEMO_STAKE_BANDWIDTH_TRX,
  DEMO_STAKE_ENERGY_TRX,
  DEVNET_INFO_FILE,
  needsEmbeddedDevnet,
  startEmbeddedDevnet,
} from "../../src/chain/embedded-devnet.js";
import { createNodeClient } from "@stablegate/tron/node-client";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { testConfig } from "../helpers/config.js";

// The devnet `npm start` runs in-process when TRON_NETWORK=devnet and no TRON_NODE_URL is given.
describe("embedded devnet", () => {
  it("funds the hot wallet once, keeps its chain across restarts, and says where it listens", async () => {
    const config = testConfig({
      TRON_NODE_URL: undefined,
      USDT_CONTRACT: undefined,
      DEVNET_BLOCK_TIME_MS: "0",
    });
    expect(needsEmbeddedDevnet(config)).toBe(true);
    // CHAINS without tron: no TRON node to run.
    expect(needsEmbeddedDevnet(testConfig({ TRON_NODE_URL: undefined, CHAINS: "ethereum" }))).toBe(false);
    const hot = addressFromPrivateKey(config.hotWalletPrivateKey as string);
    const infoFile = join(config.dataDir, DEVNET_INFO_FILE);

    const first = await startEmbeddedDevnet(config);
    const client = createNodeClient({ baseUrl: first.url });
    expect((await client.getAccount(hot))?.balance).toBe(10_000_000_000);
    expect(JSON.parse(readFileSync(infoFile, "utf8"))).toMatchObject({
      url: first.url,
      usdt_contract: first.usdtContract,
    });
    const usdt = first.usdtContract;
    await client.close();
    await first.close();
    expect(existsSync(infoFile)).toBe(false);

    const second = await startEmbeddedDevnet(config);
    const again = createNodeClient({ baseUrl: second.url });
    expect(second.usdtContract).toBe(usdt);
    expect((await again.getAccount(hot))?.balance).toBe(10_000_000_000);
    await again.close();
    await second.close();
  });

  it("stakes the demo hot wallet for energy and bandwidth once in delegate mode", async () => {
    const config = testConfig({
      TRON_NODE_URL: undefined,
      USDT_CONTRACT: undefined,
      DEVNET_BLOCK_TIME_MS: "0",
      SWEEP_MODE: "delegate",
    });
    const hot = addressFromPrivateKey(config.hotWalletPrivateKey as string);
    const staked = async (url: string) => {
      const client = createNodeClient({ baseUrl: url });
      const account = await client.getAccount(hot);
      await client.close();
      const amount = (type: string | undefined) =>
        (account?.frozenV2 ?? []).filter((f) => f.type === type).reduce((sum, f) => sum + (f.amount ?? 0), 0);
      return { energy: amount("ENERGY"), bandwidth: amount(undefined), balance: account?.balance ?? 0 };
    };
    const first = await startEmbeddedDevnet(config);
    first.mine(1);
    const once = await staked(first.url);
    expect(once).toMatchObject({
      energy: Number(DEMO_STAKE_ENERGY_TRX) * 1_000_000,
      bandwidth: Number(DEMO_STAKE_BANDWIDTH_TRX) * 1_000_000,
    });
    await first.close();
    // A restart finds the stake in place and stakes nothing more.
    const second = await startEmbeddedDevnet(config);
    second.mine(1);
    expect(await staked(second.url)).toEqual(once);
    await second.close();
  });
});
