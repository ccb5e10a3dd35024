/**
 * The chaos run, CI-sized (test/chaos/chaos-run.ts says what it mixes and checks): two worker
 * processes SIGKILLed and restarted at seeded moments while orders on TRON, Ethereum (USDT, USDC)
 * and bsc (the 18-decimal USDT) are paid exactly, under and over, strays, static deposits, refunds,
 * payouts (TRON, and EVM on ethereum and bsc from the EVM hot wallet, refunds of EVM orders included)
 * and an EVM reorganisation go on; at the end check-ledger, the orders' outcomes, the
 * webhooks and the chains' own transfers all agree. CHAOS_SEED replays a run (the seed is printed);
 * `npm run chaos` is the longer run.
 */
import { describe, expect, it } from "vitest";
import { runChaos } from "./chaos-run.js";

const seed = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) : Math.floor(Math.random() * 2 ** 31);

describe("the chaos run", () => {
  it(`settles with every balance reconciled after seeded worker kills (seed ${seed})`, async () => {
    const report = await runChaos({ seed, durationMs: 20_000, settleMs: 60_000 });
    expect(report.kills).toBeGreaterThan(0);
    expect(report.checks.length).toBeGreaterThan(10);
    expect(report.counts["tron order"] ?? 0).toBeGreaterThan(0);
  }, 240_000);
});
