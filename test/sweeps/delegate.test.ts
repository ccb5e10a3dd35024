import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepCosts } from "../../src/db/schema.js";
import { buildApp, type App } from "../../src/http/app.js";
import { formatSun } from "../../src/money.js";
import { getWalletStatus } from "../../src/wallet/get-wallet-status.js";
import { reconcileDelegations } from "../../src/sweeps/reconcile-delegations.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import type { ChainTest } from "../chain/helpers.js";
import {
  costsOf,
  delegatedEnergyStake,
  ledgerOf,
  newAccount,
  paidOrder,
  settlementOf,
  stake,
  sweepUntilSettled,
  trxBalance,
  startWalletChainTest,
} from "./delegate-helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

// Delegate mode end to end: the hot wallet stakes TRX through TronWeb on the devnet (which emulates
// Stake 2.0), orders are paid and confirmed by the real scanner, and runDueSweeps lends each sweep
// the energy it needs and takes it back. Every figure is checked against the chain's own balances.

function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe("delegate-mode sweeps with a staked hot wallet", () => {
  let t: ChainTest;
  let hot: { privateKey: string; address: string };
  let cold: { address: string };
  let app: App;
  beforeAll(async () => {
    ({ t, hot, cold } = await startWalletChainTest(
      { SWEEP_ENABLED: "true", SWEEP_MODE: "delegate", SWEEP_DELEGATE_FALLBACK: "wait" },
      { trx: "200000" },
    ));
    // Energy for the sweeps; bandwidth so the hot wallet's own transactions cost nothing either.
    await stake(t, hot.privateKey, 100_000, "ENERGY");
    await stake(t, hot.privateKey, 20_000, "BANDWIDTH");
    await t.scanner.sync();
    app = await buildApp(t.ctx);
  });
  afterAll(async () => {
    await app?.close();
    await t.close();
  });

  it("sweeps a fresh address for its activation alone and takes the energy back", async () => {
    const scrape = async () => (await app.inject({ method: "GET", url: "/metrics" })).body;
    const before = await scrape();
    const order = await paidOrder(t, "10", 10_000_000n);
    const hotBefore = await trxBalance(t, hot.address);

    const settled = await sweepUntilSettled(t, order.id);
    expect(settled).toMatchObject({ status: "completed", step: "swept", mode: "delegate", attempts: 0 });
    expect(await usdtBalance(t.devnet, cold.address)).toBe(10_000_000n);
    expect(await usdtBalance(t.devnet, order.address)).toBe(0n);
    // Nothing stays delegated once the settlement is done.
    expect(await delegatedEnergyStake(t, hot.address, order.address)).toBe(0n);

    // What left the hot wallet and is not on the address was burnt: the activation, nothing else.
    const burnt = hotBefore - (await trxBalance(t, hot.address)) - (await trxBalance(t, order.address));
    const [cost] = await costsOf(t, order.id);
    expect(cost).toMatchObject({
      mode: "delegate",
      freshAddress: true,
      amount: 10_000_000n,
      trxBurnt: burnt,
    });
    expect(cost?.activationTrx).toBe(burnt);
    expect(burnt).toBeGreaterThanOrEqual(1_000_000n);
    expect(burnt).toBeLessThanOrEqual(1_100_000n);
    expect(cost?.energyDelegated).toBeGreaterThan(0n);
    expect(cost?.energyUsed).toBeGreaterThan(0n);
    expect(cost?.energyDelegated).toBeGreaterThanOrEqual(cost?.energyUsed ?? 0n);

    // /metrics moved by the ledger's figures: the TRX burnt (the activation) and the energy lent.
    const after = await scrape();
    const moved = (series: string) => sample(after, series) - sample(before, series);
    expect(moved("stablegate_sweep_spent_trx_total")).toBeCloseTo(Number(burnt) / 1e6, 6);
    expect(moved("stablegate_sweep_delegated_energy_total")).toBe(Number(cost?.energyDelegated));
    expect(moved('stablegate_sweeps_total{result="completed"}')).toBe(1);

    // The sweep burnt no TRX: its energy came from the delegation (TronWeb reads the info).
    const info = (await t.tw.trx.getTransactionInfo(settled?.sweepTxHash as string)) as {
      fee?: number;
      receipt: { result: string; energy_usage?: number };
    };
    expect(info.receipt.result).toBe("SUCCESS");
    expect(info.fee ?? 0).toBe(0);
    expect(BigInt(info.receipt.energy_usage ?? 0)).toBe(cost?.energyUsed);

    const ledger = await ledgerOf(t, settled!.id);
    expect(ledger.map((r) => `${r.kind}:${r.state}`).sort()).toEqual([
      "activate:solid",
      "delegate:solid",
      "sweep:solid",
      "undelegate:solid",
    ]);
    expect(await t.events(order.id)).toContain("sweep_completed");
  });

  it("sweeps a reused address for nothing at all", async () => {
    const order = await paidOrder(t, "7", 7_000_000n);
    expect((await sweepUntilSettled(t, order.id))?.status).toBe("completed");
    // A later payment to the same, now active, address, on a later day (its free bandwidth is back):
    // a second round. (Within one day the address pays its bytes in TRX: 600 free a day, 345 a sweep.)
    t.devnet.advanceClock(24 * 3600_000);
    const hotBefore = await trxBalance(t, hot.address);
    const addressBefore = await trxBalance(t, order.address);
    const before = (await app.inject({ method: "GET", url: "/metrics" })).body;
    await t.pay(order.address, 4_000_000n);
    t.mine(1);
    await t.finalize();
    expect(await settlementOf(t, order.id)).toMatchObject({ status: "waiting", round: 2 });

    const settled = await sweepUntilSettled(t, order.id);
    expect(settled).toMatchObject({ status: "completed", round: 2 });
    expect(await usdtBalance(t.devnet, order.address)).toBe(0n);
    expect(await trxBalance(t, hot.address)).toBe(hotBefore);
    expect(await trxBalance(t, order.address)).toBe(addressBefore);
    const second = (await costsOf(t, order.id)).find((c) => c.round === 2);
    expect(second).toMatchObject({
      mode: "delegate",
      freshAddress: false,
      amount: 4_000_000n,
      trxBurnt: 0n,
      activationTrx: 0n,
      transactions: 3,
    });
    // Nothing burnt, so nothing counted as spent; the energy lent is counted.
    const after = (await app.inject({ method: "GET", url: "/metrics" })).body;
    const moved = (series: string) => sample(after, series) - sample(before, series);
    expect(moved("stablegate_sweep_spent_trx_total")).toBe(0);
    expect(moved("stablegate_sweep_delegated_energy_total")).toBe(Number(second?.energyDelegated));
    expect(second?.energyDelegated).toBeGreaterThan(0n);
    expect(await delegatedEnergyStake(t, hot.address, order.address)).toBe(0n);
  });

  it("takes back a delegation whose settlement is over, and leaves the operator's own alone", async () => {
    const order = await paidOrder(t, "2", 2_000_000n);
    expect((await sweepUntilSettled(t, order.id))?.status).toBe("completed");
    const stranger = await newAccount();
    await t.devnetPost("/devnet/fund", { address: stranger.address, trx: "1", solidify: true });
    // Delegations made outside the sweeper: one to a finished deposit address, one elsewhere.
    for (const receiver of [order.address, stranger.address]) {
      const tx = await t.tw.transactionBuilder.delegateResource(
        2_000 * 1_000_000,
        receiver,
        "ENERGY",
        hot.address,
        false,
      );
      const sent = await t.tw.trx.sendRawTransaction(await t.tw.trx.sign(tx, hot.privateKey));
      expect(sent.result).toBe(true);
    }
    t.mine(1);
    expect(await delegatedEnergyStake(t, hot.address, order.address)).toBe(2_000_000_000n);
    // The wallet status shows the stake and the two delegations open.
    const status = await getWalletStatus(t.ctx);
    const resource = await t.ctx.chain.client.getAccountResource(hot.address);
    const energyPerTrx = (resource.TotalEnergyLimit ?? 0) / (resource.TotalEnergyWeight ?? 1);
    expect(status.stake).toMatchObject({ staked_trx: "100000.000000", delegations_open: 2 });
    expect(status.stake?.energy_in_use).toBe(Math.floor(4_000 * energyPerTrx));
    expect(status.stake?.energy_limit).toBe(Math.floor(100_000 * energyPerTrx));
    expect(status.stake!.energy_available).toBeLessThanOrEqual(Math.floor(96_000 * energyPerTrx));
    // Less what the sweeps used: java-tron hands a receiver's used energy back to the owner.
    expect(status.stake!.energy_available).toBeGreaterThan(Math.floor(50_000 * energyPerTrx));
    expect(status.system.sweep_mode).toBe("delegate");
    // Three sweeps so far (one address twice): the first activated its address, the rest cost nothing.
    const costs = await t.ctx.db.select().from(sweepCosts);
    const total = costs.reduce((sum, c) => sum + c.trxBurnt, 0n);
    expect(status.sweep_costs.delegate.total).toEqual({
      count: costs.length,
      total_trx: formatSun(total),
      average_trx: formatSun(total / BigInt(costs.length)),
    });
    expect(status.sweep_costs.delegate.week).toEqual(status.sweep_costs.delegate.total);
    expect(status.sweep_costs.burn.total).toEqual({
      count: 0,
      total_trx: "0.000000",
      average_trx: "0.000000",
    });

    const first = await reconcileDelegations(t.ctx);
    expect(first).toMatchObject({ delegations: 1, open: 0, reclaimed: 1 });
    // While the reclaim is in flight, a second pass does not sign another.
    expect(await reconcileDelegations(t.ctx)).toMatchObject({ reclaimed: 0 });
    t.mine(1);
    expect(await delegatedEnergyStake(t, hot.address, order.address)).toBe(0n);
    expect(await delegatedEnergyStake(t, hot.address, stranger.address)).toBe(2_000_000_000n);
    expect(await reconcileDelegations(t.ctx)).toMatchObject({ delegations: 0, reclaimed: 0 });
  });
});

describe("delegate mode with too small a stake", () => {
  let t: ChainTest;
  let hot: { privateKey: string; address: string };
  beforeAll(async () => {
    ({ t, hot } = await startWalletChainTest(
      { SWEEP_ENABLED: "true", SWEEP_MODE: "delegate", SWEEP_DELEGATE_FALLBACK: "burn" },
      { trx: "1000" },
    ));
    await stake(t, hot.privateKey, 10, "ENERGY");
    await t.scanner.sync();
  });
  afterAll(async () => {
    await t.close();
  });

  it("burns TRX as burn mode does with SWEEP_DELEGATE_FALLBACK=burn, and delegates nothing", async () => {
    const order = await paidOrder(t, "5", 5_000_000n);
    const settled = await sweepUntilSettled(t, order.id);
    expect(settled).toMatchObject({ status: "completed", mode: "delegate", attempts: 0 });
    expect(await usdtBalance(t.devnet, order.address)).toBe(0n);
    const ledger = await ledgerOf(t, settled!.id);
    expect(ledger.map((r) => r.kind).sort()).toEqual(["activate", "fund", "sweep"]);
    const [cost] = await costsOf(t, order.id);
    expect(cost?.energyDelegated).toBe(0n);
    // The energy was paid in TRX: far more than the activation.
    expect(cost!.trxBurnt - cost!.activationTrx).toBeGreaterThan(1_000_000n);
  });
});

describe("delegate mode with a stake for two sweeps at a time", () => {
  let t: ChainTest;
  let hot: { privateKey: string; address: string };
  beforeAll(async () => {
    const started = await startWalletChainTest(
      { SWEEP_ENABLED: "true", SWEEP_MODE: "delegate", SWEEP_DELEGATE_FALLBACK: "wait" },
      { trx: "40000" },
    );
    ({ t, hot } = started);
    await t.devnetPost("/devnet/fund", { address: started.cold.address, usdt: "1", solidify: true });
    // About 189k energy: two transfers to a holder (~71k each with the margin), not three.
    await stake(t, hot.privateKey, 20_000, "ENERGY");
    await stake(t, hot.privateKey, 5_000, "BANDWIDTH");
    await t.scanner.sync();
  });
  afterAll(async () => {
    await t.close();
  });

  it("shares the stake between concurrent sweeps: some wait, none over-commits, all finish", async () => {
    const orders = [];
    for (let i = 0; i < 5; i++) orders.push(await paidOrder(t, "3", 3_000_000n));
    const workers = ["w1", "w2", "w3"];
    const runAll = () => Promise.all(workers.map((owner) => runDueSweeps(t.ctx, { owner, limit: 2 })));
    await runAll(); // activations signed
    t.devnet.mine(1);
    t.clock.advance(61_000);
    await runAll(); // activations in a block: every sweep asks for its energy at once
    // Claimed at once by three workers: the stake let exactly two delegate, the rest wait for it.
    const steps = (await Promise.all(orders.map((o) => settlementOf(t, o.id)))).map((r) => r?.step);
    expect(steps.filter((s) => s === "delegate_sent")).toHaveLength(2);
    expect(steps.filter((s) => s === "delegate")).toHaveLength(3);

    for (let round = 0; round < 60; round++) {
      t.devnet.mine(1);
      // Used energy recovers over 24 h: a few hours a round lets the waiting sweeps go on.
      if (round % 4 === 3) t.devnet.advanceClock(8 * 3600_000);
      t.clock.advance(61_000);
      await runAll();
      const rows = await Promise.all(orders.map((o) => settlementOf(t, o.id)));
      if (rows.every((r) => r?.status === "completed")) break;
    }
    for (const order of orders) {
      const settled = await settlementOf(t, order.id);
      expect(settled).toMatchObject({ status: "completed", attempts: 0, lastError: null });
      expect(await usdtBalance(t.devnet, order.address)).toBe(0n);
      // Every delegation the sweepers signed landed: none was refused or left to expire.
      const ledger = await ledgerOf(t, settled!.id);
      expect(ledger.filter((r) => r.kind === "delegate").map((r) => r.state)).toEqual(["solid"]);
      expect(await delegatedEnergyStake(t, hot.address, order.address)).toBe(0n);
    }
  });
});
