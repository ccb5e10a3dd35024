/**
 * Sweeping a static address by balance, in burn and delegate modes, over the devnet: deposits to one
 * address (three in a row, one below the minimum, one a fork drops, one after the address was
 * disabled, then one that tips the balance over again) are swept in rounds once the confirmed,
 * unswept sum reaches SWEEP_MIN_USDT; every confirmed deposit is in exactly one round, the forked one
 * in none, and the cold wallet holds exactly the sum of the swept deposits, read from the chain.
 */
import { and, asc, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deposits, settlements, sweepCosts } from "../../src/db/schema.js";
import { createDepositAddress } from "../../src/deposits/create-deposit-address.js";
import { setDepositAddressStatus } from "../../src/deposits/set-deposit-address-status.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { chainTransfers, type ChainTest } from "../chain/helpers.js";
import { stake, startWalletChainTest } from "../sweeps/delegate-helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

const USDT = 1_000_000n;

describe.each(["burn", "delegate"] as const)("sweep by balance, %s mode", (mode) => {
  let t: ChainTest;
  let cold: { address: string };

  beforeAll(async () => {
    const started = await startWalletChainTest(
      {
        SWEEP_ENABLED: "true",
        SWEEP_MODE: mode,
        SWEEP_DELEGATE_FALLBACK: "burn",
        SWEEP_MIN_USDT: "15",
        DEPOSIT_MIN_USDT: "1",
      },
      { trx: "200000" },
    );
    const hot = started.hot;
    ({ t, cold } = started);
    if (mode === "delegate") await stake(t, hot.privateKey, 100_000, "ENERGY");
    await t.scanner.sync();
  }, 120_000);
  afterAll(() => t.close());

  async function addressSettlements(address: string) {
    return t.ctx.db
      .select()
      .from(settlements)
      .where(and(eq(settlements.address, address), isNull(settlements.orderId)));
  }

  /** Mines, moves the clock past any wait and runs the sweeper until no round of `address` is open. */
  async function sweepUntilIdle(address: string, rounds = 40) {
    for (let i = 0; i < rounds; i++) {
      t.devnet.mine(1);
      t.clock.advance(61_000);
      await runDueSweeps(t.ctx);
      await t.scanner.sync();
      const rows = await addressSettlements(address);
      if (rows.every((r) => r.status === "completed" || r.status === "failed")) return rows;
    }
    return addressSettlements(address);
  }

  it("sweeps each deposit once, in rounds that start at the threshold, and the cold wallet gets exactly the deposits", async () => {
    const { depositAddress: da } = await createDepositAddress(t.ctx, t.merchantId, {
      customerRef: `sweep-${mode}`,
      callbackUrl: "https://merchant.example.com/deposits",
    });
    const startBlock = (await t.cursor()) ?? 0;
    const pay = async (micro: bigint) => {
      const tx = await t.pay(da.address, micro);
      t.mine(1);
      return tx;
    };

    // 5 + 6 = 11 < 15: nothing to sweep yet.
    await pay(5n * USDT);
    await pay(6n * USDT);
    await t.finalize();
    expect(await addressSettlements(da.address)).toEqual([]);

    // + 7 = 18 >= 15: one round sweeps exactly 18.
    await pay(7n * USDT);
    await t.finalize();
    let rows = await sweepUntilIdle(da.address);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "completed", round: 1, amount: 18n * USDT });
    expect(await usdtBalance(t.devnet, cold.address)).toBe(18n * USDT);

    // Below the minimum, a forked one, and one after disabling: 0.5 + 2 = 2.5 confirmed, not enough.
    await pay(500_000n);
    const forked = await pay(9n * USDT);
    await t.scanner.sync();
    await t.devnetPost("/devnet/fork", { depth: 1 });
    await t.scanner.sync();
    await setDepositAddressStatus(t.ctx, t.merchantId, da.id, "disabled");
    await pay(2n * USDT);
    await t.finalize();
    rows = await sweepUntilIdle(da.address);
    expect(rows[0]).toMatchObject({ status: "completed", round: 1 });

    // + 20 = 22.5 >= 15: the second round sweeps exactly 22.5.
    await pay(20n * USDT);
    await t.finalize();
    rows = await sweepUntilIdle(da.address);
    expect(rows[0]).toMatchObject({ status: "completed", round: 2, amount: 22_500_000n });
    expect(await usdtBalance(t.devnet, cold.address)).toBe(40_500_000n);
    expect(await usdtBalance(t.devnet, da.address)).toBe(0n);

    // Every confirmed deposit in exactly one round; the forked one in none.
    const all = await t.ctx.db
      .select()
      .from(deposits)
      .where(eq(deposits.depositAddressId, da.id))
      .orderBy(asc(deposits.blockNumber), asc(deposits.createdAt));
    const settlementId = rows[0]?.id;
    expect(
      all.map((d) => [d.amount, d.status, d.settlementId === settlementId ? d.sweepRound : null]),
    ).toEqual([
      [5n * USDT, "confirmed", 1],
      [6n * USDT, "confirmed", 1],
      [7n * USDT, "confirmed", 1],
      [500_000n, "confirmed", 2],
      [9n * USDT, "reverted", null],
      [2n * USDT, "confirmed", 2],
      [20n * USDT, "confirmed", 2],
    ]);
    expect(all.find((d) => d.txHash === forked)?.settlementId).toBeNull();

    // The cost ledger has both rounds with their amounts and mode.
    const costs = await t.ctx.db
      .select()
      .from(sweepCosts)
      .where(eq(sweepCosts.settlementId, settlementId as string))
      .orderBy(asc(sweepCosts.round));
    expect(costs.map((c) => [c.round, c.amount, c.mode])).toEqual([
      [1, 18n * USDT, mode],
      [2, 22_500_000n, mode],
    ]);
    for (const c of costs) {
      if (mode === "burn") expect(c.trxBurnt).toBeGreaterThan(0n);
      else expect(c.energyDelegated).toBeGreaterThan(0n);
    }

    // Against the chain: two USDT transfers reached the cold wallet, and the deposits recorded are
    // exactly the chain's transfers to the address.
    const head = (await t.cursor()) ?? 0;
    expect(await chainTransfers(t, new Set([cold.address]), startBlock, head)).toHaveLength(2);
    const recorded = all
      .filter((d) => d.status !== "reverted")
      .map((d) => `${d.txHash}:${d.logIndex}`)
      .sort();
    expect(recorded).toEqual(await chainTransfers(t, new Set([da.address]), startBlock, head));
  }, 240_000);
});
