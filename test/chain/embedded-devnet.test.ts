import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEVNET_INFO_FILE,
  needsEmbeddedDevnet,
  startEmbeddedDevnet,
} from "../../src/chain/embedded-devnet.js";
import { createNodeClient } from "../../src/tron/node-client.js";
import { addressFromPrivateKey } from "../../src/tron/address.js";
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
});
