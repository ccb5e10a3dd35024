/**
 * When the sender looks at a transaction again (untilSolid, src/payouts/payout-chain.ts): the time
 * the solidified head should reach its block, counted from when the round read that head, not from
 * the end of the round; a look that came a block early comes back one block later. The round's
 * reads are given as the chain would answer them (1 s blocks, solidified 19 behind).
 */
import { describe, expect, it } from "vitest";
import { untilSolid, type SendRound } from "../../src/payouts/payout-chain.js";

function roundAt(solidNumber: number, readAt: number): SendRound {
  const solid = { number: solidNumber, timestamp: 1_000_000 + solidNumber * 1_000 };
  const head = { number: solidNumber + 19, timestamp: solid.timestamp + 19_000 };
  return {
    solidHead: async () => solid,
    solidReadAt: readAt,
    head: async () => ({ ...head, hash: "00".repeat(32) }),
    prices: async () => ({ energyPriceSun: 100n, bandwidthPriceSun: 1_000n }),
    energy: async () => 0,
    float: async () => ({ balance: 0n, committed: 0n, committedCount: 0, unseen: 0n }),
    reserved: 0n,
    signed: 0,
  } as SendRound;
}

describe("untilSolid", () => {
  it("counts from when the round read the solidified head", async () => {
    // block 119 is 19 blocks above the solidified head 100 read at t=50 s: solid at about t=69 s
    const readAt = 50_000;
    const atRead = await untilSolid(roundAt(100, readAt), 119, 3_000, 60_000, readAt);
    const fourSecondsLater = await untilSolid(roundAt(100, readAt), 119, 3_000, 60_000, readAt + 4_000);
    expect(atRead).toBeGreaterThanOrEqual(19_000);
    expect(atRead).toBeLessThan(20_000);
    expect(fourSecondsLater).toBe(atRead - 4_000);
  });

  it("comes back one block later, not the minimum wait, when the look came a block early", async () => {
    const wait = await untilSolid(roundAt(100, 0), 101, 3_000, 60_000, 0);
    expect(wait).toBeGreaterThanOrEqual(1_000);
    expect(wait).toBeLessThan(3_000);
  });

  it("waits the minimum where the chain shows no pace, and never more than the maximum", async () => {
    const still = roundAt(100, 0);
    still.head = async () => ({ number: 100, timestamp: 1_100_000, hash: "00".repeat(32) });
    expect(await untilSolid(still, 101, 3_000, 60_000, 0)).toBe(3_000);
    expect(await untilSolid(roundAt(100, 0), 1_000, 3_000, 60_000, 0)).toBe(60_000);
  });
});
