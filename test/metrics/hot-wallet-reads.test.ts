import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  HOT_WALLET_READ_MS,
  refreshMetricsSnapshot,
  SNAPSHOT_REFRESH_MS,
} from "../../src/metrics/refresh-metrics-snapshot.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";

// The node-call budget: the metrics refresher runs every 15 s, but reads the hot wallet (two node
// calls) once a minute, carrying the last values in between.
let t: ChainTest;

beforeAll(async () => {
  t = await startChainTest();
});
afterAll(() => t.close());

async function accountReads(): Promise<number> {
  const info = (await (await fetch(`${t.devnet.url}/devnet/info`)).json()) as {
    requests: { by_path: Record<string, number> };
  };
  return info.requests.by_path["/wallet/getaccount"] ?? 0;
}

describe("hot wallet reads of the metrics refresher", () => {
  it("reads the balance from the node once a minute, not on every 15 s refresh", async () => {
    expect(t.config.hotWalletAddress).toBeDefined();
    await t.devnetPost("/devnet/fund", { address: t.config.hotWalletAddress, trx: "250" });
    t.mine(1);
    const before = await accountReads();
    const first = await refreshMetricsSnapshot(t.ctx);
    expect(first.snapshot?.hotWalletBalanceTrx).toBe(250);
    expect(await accountReads()).toBe(before + 1);

    const refreshes = HOT_WALLET_READ_MS / SNAPSHOT_REFRESH_MS - 1;
    for (let i = 0; i < refreshes; i++) {
      t.clock.advance(SNAPSHOT_REFRESH_MS);
      const r = await refreshMetricsSnapshot(t.ctx);
      expect(r.refreshed).toBe(true);
      // The last read's values are carried, so the gauge never blinks out.
      expect(r.snapshot?.hotWalletBalanceTrx).toBe(250);
    }
    expect(await accountReads()).toBe(before + 1);

    await t.devnetPost("/devnet/fund", { address: t.config.hotWalletAddress, trx: "5" });
    t.mine(1);
    t.clock.advance(SNAPSHOT_REFRESH_MS);
    const later = await refreshMetricsSnapshot(t.ctx);
    expect(await accountReads()).toBe(before + 2);
    expect(later.snapshot?.hotWalletBalanceTrx).toBe(255);
  });
});
