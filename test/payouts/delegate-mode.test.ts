/**
 * Payouts in delegate mode (DESIGN.md 14, docs/delegate-mode.md), on the devnet over HTTP:
 *  - a hot wallet holding staked energy (and bandwidth) pays a payout's transfer with its own
 *    resources: 0 TRX burnt, recorded as such on the payout and in its cost row
 *    (payout_transactions: mode delegate, fee 0, the energy used), and its TRX balance unchanged;
 *  - once the stake's energy is used up, the next payout does not wait: the chain burns TRX for the
 *    energy missing, and exactly what the hot wallet lost is recorded as burnt.
 * PGlite or PostgreSQL (TEST_DATABASE_URL).
 */
import { approvedPayout as approvedPayoutOf } from "../helpers/payout-chain.js";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payouts, payoutTransactions } from "../../src/db/schema.js";
import { checkLedger } from "../../src/ledger/check-ledger.js";
import { runDuePayouts } from "../../src/payouts/send-payouts.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";
import { newAccount, stake, trxBalance } from "../sweeps/delegate-helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

const USDT = 1_000_000n;
let t: ChainTest;
let hot: { privateKey: string; address: string };

beforeAll(async () => {
  hot = await newAccount();
  t = await startChainTest({
    env: { HOT_WALLET_PRIVATE_KEY: hot.privateKey, SWEEP_ENABLED: "false", SWEEP_MODE: "delegate" },
  });
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "60000", usdt: "1000", solidify: true });
  // Bandwidth so the wallet's own bytes cost nothing.
  await stake(t, hot.privateKey, 20_000, "BANDWIDTH");
  await t.scanner.sync();
  const order = await t.order("100");
  await t.pay(order.address, 100n * USDT);
  t.mine(1);
  await t.finalize();
}, 120_000);
afterAll(() => t?.close());

const approvedPayout = (to: string, externalId: string, amount: string) =>
  approvedPayoutOf(t, "sg_test_delegate", to, externalId, amount);

async function sendUntilDone(id: string) {
  for (let i = 0; i < 20; i++) {
    await runDuePayouts(t.ctx);
    t.devnet.mine(SOLIDIFY_AFTER + 1);
    t.clock.advance(60_000);
    const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
    if (row?.status === "completed" || row?.status === "failed") return row;
  }
  throw new Error(`payout ${id} not done`);
}

const costRow = async (id: string) =>
  (await t.ctx.db.select().from(payoutTransactions).where(eq(payoutTransactions.payoutId, id)))[0];

async function energyLeft(): Promise<number> {
  const r = (await t.tw.trx.getAccountResources(hot.address)) as {
    EnergyLimit?: number;
    EnergyUsed?: number;
  };
  return (r.EnergyLimit ?? 0) - (r.EnergyUsed ?? 0);
}

describe("payouts in delegate mode", () => {
  it("with the hot wallet's staked energy: 0 TRX burnt, recorded in the cost row", async () => {
    // ~190,000 energy: one USDT transfer to a fresh holder needs ~130,285.
    await stake(t, hot.privateKey, 20_000, "ENERGY");
    expect(await energyLeft()).toBeGreaterThan(140_000);
    const to = (await newAccount()).address;
    const before = await trxBalance(t, hot.address);
    const id = await approvedPayout(to, "delegate-1", "5");
    const done = await sendUntilDone(id);
    expect(done).toMatchObject({ status: "completed", trxBurntSun: 0n });
    expect(done.energyUsed).toBeGreaterThan(0n);
    expect(await usdtBalance(t.devnet, to)).toBe(5n * USDT);
    expect(await trxBalance(t, hot.address)).toBe(before);
    const cost = await costRow(id);
    expect(cost).toMatchObject({ mode: "delegate", state: "solid", feeSun: 0n, energyFeeSun: 0n });
    expect(cost?.energyUsed).toBe(done.energyUsed);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  }, 180_000);

  it("with the stake's energy used up: the payout goes ahead, and the TRX the chain burnt is recorded", async () => {
    // Use up what is left of the stake with payouts until one has to burn.
    for (let n = 2; n < 8; n++) {
      const left = await energyLeft();
      const to = (await newAccount()).address;
      const before = await trxBalance(t, hot.address);
      const id = await approvedPayout(to, `delegate-${n}`, "1");
      const done = await sendUntilDone(id);
      expect(done.status).toBe("completed");
      expect(await usdtBalance(t.devnet, to)).toBe(USDT);
      const lost = before - (await trxBalance(t, hot.address));
      // Whatever happened, the record is the wallet's real loss.
      expect(done.trxBurntSun).toBe(lost);
      expect((await costRow(id))?.feeSun).toBe(lost);
      if (BigInt(left) < (done.energyUsed ?? 0n)) {
        expect(lost).toBeGreaterThan(0n);
        expect(await checkLedger(t.ctx.db)).toEqual([]);
        return;
      }
    }
    throw new Error("the stake never ran short");
  }, 300_000);
});
