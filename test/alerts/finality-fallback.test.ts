/**
 * BSC's finalized tag stalling (docs/chains.md): on an Anvil whose `finalized` tag lags 200 blocks,
 * more than BSC's 120-block fallback depth, the chain's final block is head - 119, the published
 * status says it fell back, and the finality_fallback alert of that chain fires (and only that
 * chain's); with the tag within the depth it stays quiet.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAlertConditions } from "../../src/alerts/alert-conditions.js";
import { publishChainStatus, readChainStatus } from "../../src/chain/chain-status.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmDevnetForFile } from "../helpers/evm-devnet.js";

const stalled = evmDevnetForFile({ finalityDepth: 200 });
let t: TestApp;

beforeAll(async () => {
  const d = stalled();
  t = await createTestApp({
    env: {
      CHAINS: "tron,bsc",
      BSC_NETWORK: "devnet",
      BSC_RPC_URL: d.rpcUrl,
      BSC_USDT_CONTRACT: d.usdt18Contract,
    },
  });
  t.clock.set(new Date());
}, 120_000);

afterAll(async () => {
  await t?.close();
});

const fallbackAlert = async () =>
  (await readAlertConditions(t.ctx, { headFreshMs: 0 })).find((r) => r.key === "finality_fallback:bsc");

describe("a stalled finalized tag on BSC", () => {
  it("stays quiet while the tag is within 120 blocks, then falls back to 120 confirmations and alerts", async () => {
    const d = stalled();
    const bsc = t.ctx.chains.get("bsc");
    if (!bsc) throw new Error("bsc is not enabled");
    const call = { signal: new AbortController().signal, log: t.ctx.log };

    await d.mine(100);
    // The tag names genesis; 120 confirmations reach no block yet.
    expect((await bsc.finalHead(call)).number).toBe(0);
    await publishChainStatus(t.ctx, bsc);
    expect((await readChainStatus(t.ctx, "bsc"))?.finalityFallback).toBe(false);
    expect(await fallbackAlert()).toMatchObject({ firing: false });

    const head = await d.mine(100);
    expect((await bsc.finalHead(call)).number).toBe(head - 119);
    await publishChainStatus(t.ctx, bsc);
    expect((await readChainStatus(t.ctx, "bsc"))?.finalityFallback).toBe(true);
    expect(await fallbackAlert()).toMatchObject({
      firing: true,
      severity: "warning",
      details: { chain: "bsc" },
    });
    const tron = (await readAlertConditions(t.ctx, { headFreshMs: 0 })).find(
      (r) => r.key === "finality_fallback:tron",
    );
    expect(tron?.firing).toBe(false);
  });
});
