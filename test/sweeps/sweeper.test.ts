import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext, type Context } from "../../src/context.js";
import { addresses, settlements, sweepCosts, sweepTransactions } from "../../src/db/schema.js";
import { createLogger } from "../../src/logger.js";
import { retrySweep } from "../../src/sweeps/retry-sweep.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { SWEEP_MAX_ATTEMPTS } from "../../src/sweeps/sweep-plan.js";
import { derivePrivateKey } from "@stablegate/tron/hd";
import { privateKeyToHex } from "@stablegate/tron/sign";
import { TEST_MNEMONIC } from "../helpers/config.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";
import { paidOrder, settlementOf, startWalletChainTest, trxBalance } from "./delegate-helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

// The sweeper end to end: orders paid over the devnet with TronWeb, confirmed by the real scanner
// and confirmer, swept by runDueSweeps against the same devnet over HTTP. The devnet burns TRX for
// energy and bandwidth and charges account creation exactly as mainnet does.
const CREATE_ACCOUNT_TOTAL_SUN = 1_100_000n; // 1 TRX creation fee + 0.1 TRX of creation bandwidth

/** Mines, solidifies and runs the sweeper until the settlement ends (or `rounds` runs pass). */
async function sweepUntilSettled(t: ChainTest, orderId: string, rounds = 12, ctx: Context = t.ctx) {
  for (let i = 0; i < rounds; i++) {
    t.devnet.mine(SOLIDIFY_AFTER + 1);
    t.clock.advance(31 * 60_000); // past any backoff
    await runDueSweeps(ctx);
    const row = await settlementOf(t, orderId);
    if (row?.status === "completed" || row?.status === "failed") return row;
  }
  return settlementOf(t, orderId);
}

describe("sweeper with a funded hot wallet", () => {
  let t: ChainTest;
  let hot: { privateKey: string; address: string };
  let cold: { address: string };
  beforeAll(async () => {
    ({ t, hot, cold } = await startWalletChainTest(
      { SWEEP_ENABLED: "true", SWEEP_MIN_USDT: "1" },
      { trx: "1000" },
    ));
    await t.scanner.sync(); // first start: the cursor is placed at the head
  });
  afterAll(async () => {
    await t.close();
  });

  it("moves a confirmed order's USDT to the cold wallet, paying exactly the fees from the hot wallet", async () => {
    const order = await paidOrder(t, "50", 50_000_000n);
    expect((await t.orderRow(order.id)).status).toBe("confirmed");
    expect(await settlementOf(t, order.id)).toMatchObject({ status: "waiting", address: order.address });
    const hotBefore = await trxBalance(t, hot.address);

    const settled = await sweepUntilSettled(t, order.id);
    expect(settled).toMatchObject({ status: "completed", step: "swept", amount: 50_000_000n, attempts: 0 });
    expect(settled?.sweepTxHash).toMatch(/^[0-9a-f]{64}$/);
    expect(settled?.feeTxHash).toMatch(/^[0-9a-f]{64}$/);
    expect(settled?.sweptAt).toBeInstanceOf(Date);
    expect(await usdtBalance(t.devnet, cold.address)).toBe(50_000_000n);
    expect(await usdtBalance(t.devnet, order.address)).toBe(0n);

    // The hot wallet paid one funding transfer (and the new account's creation), nothing more.
    const fee = settled?.feeTrx ?? 0n;
    expect(fee).toBeGreaterThan(0n);
    expect(hotBefore - (await trxBalance(t, hot.address))).toBe(fee + CREATE_ACCOUNT_TOTAL_SUN);
    // What the sweep did not burn stays on the address: the 10% energy margin at most.
    expect(await trxBalance(t, order.address)).toBeLessThanOrEqual(fee / 10n);

    // The cost ledger: what left the wallets and is not on the address any more was burnt, and the
    // ledger (read from the transaction infos) says exactly that.
    const [cost] = await t.ctx.db.select().from(sweepCosts).where(eq(sweepCosts.orderId, order.id));
    const burnt = hotBefore - (await trxBalance(t, hot.address)) - (await trxBalance(t, order.address));
    expect(cost).toMatchObject({
      mode: "burn",
      freshAddress: true,
      amount: 50_000_000n,
      trxBurnt: burnt,
      activationTrx: CREATE_ACCOUNT_TOTAL_SUN,
      energyDelegated: 0n,
      transactions: 2,
    });
    const sweepInfo = (await t.tw.trx.getTransactionInfo(settled?.sweepTxHash as string)) as {
      fee: number;
      receipt: { energy_usage_total: number };
    };
    expect(cost?.energyUsed).toBe(BigInt(sweepInfo.receipt.energy_usage_total));
    expect(cost?.trxBurnt).toBe(CREATE_ACCOUNT_TOTAL_SUN + BigInt(sweepInfo.fee));
    expect(cost!.sweptAt.getTime()).toBeGreaterThanOrEqual(cost!.queuedAt.getTime());
    const ledger = await t.ctx.db
      .select()
      .from(sweepTransactions)
      .where(eq(sweepTransactions.settlementId, settled!.id));
    expect(ledger.map((row) => [row.kind, row.state]).sort()).toEqual([
      ["fund", "solid"],
      ["sweep", "solid"],
    ]);

    const events = await t.events(order.id);
    expect(events).toContain("sweep_completed");
    const [tx] = await t.tw.trx.getTransactionInfo(settled?.sweepTxHash as string).then((info) => [info]);
    expect((tx as { receipt: { result: string } }).receipt.result).toBe("SUCCESS");
  });

  it("re-broadcasts the same signed funding after the broadcast failed, and the hot wallet pays once", async () => {
    const order = await paidOrder(t, "20", 20_000_000n);
    const hotBefore = await trxBalance(t, hot.address);
    await t.devnetPost("/devnet/faults", { rate_500: 1, count: 1, paths: ["/wallet/broadcasttransaction"] });
    await runDueSweeps(t.ctx);
    const afterFault = await settlementOf(t, order.id);
    expect(afterFault).toMatchObject({ status: "active", step: "fund_sent", attempts: 0 });
    const fundingTx = afterFault?.feeTxHash;
    expect(afterFault?.lastError).toMatch(/500/);

    const settled = await sweepUntilSettled(t, order.id);
    expect(settled).toMatchObject({ status: "completed", step: "swept", feeTxHash: fundingTx });
    expect(await usdtBalance(t.devnet, cold.address)).toBe(70_000_000n);
    const fee = settled?.feeTrx ?? 0n;
    expect(hotBefore - (await trxBalance(t, hot.address))).toBe(fee + CREATE_ACCOUNT_TOTAL_SUN);
  });

  it("sweeps again when a payment lands after the sweep was signed", async () => {
    const order = await paidOrder(t, "5", 5_000_000n);
    // Run until the sweep transaction is signed and broadcast, but not yet solidified.
    for (let i = 0; i < 6; i++) {
      t.devnet.mine(SOLIDIFY_AFTER + 1);
      t.clock.advance(60_000);
      await runDueSweeps(t.ctx);
      if ((await settlementOf(t, order.id))?.step === "sweep_sent") break;
    }
    expect(await settlementOf(t, order.id)).toMatchObject({ status: "active", step: "sweep_sent" });
    await t.pay(order.address, 3_000_000n); // an overpayment arrives meanwhile
    t.mine(1);
    await t.finalize();
    expect((await t.orderRow(order.id)).status).toBe("overpaid");

    const settled = await sweepUntilSettled(t, order.id);
    expect(settled).toMatchObject({ status: "completed", step: "swept", amount: 3_000_000n });
    expect(await usdtBalance(t.devnet, order.address)).toBe(0n);
    expect((await t.events(order.id)).filter((e) => e === "sweep_completed")).toHaveLength(2);
    // Each round has its own cost: the second found the address active and funded only its energy.
    const costs = await t.ctx.db.select().from(sweepCosts).where(eq(sweepCosts.orderId, order.id));
    expect(costs.map((c) => [c.round, c.amount, c.freshAddress]).sort()).toEqual([
      [1, 5_000_000n, true],
      [2, 3_000_000n, false],
    ]);
    expect(costs.every((c) => c.trxBurnt > 0n)).toBe(true);
  });

  it("leaves a balance below SWEEP_MIN_USDT where it is, and sweeps again after a later payment", async () => {
    const order = await paidOrder(t, "0.5", 500_000n);
    const dust = await sweepUntilSettled(t, order.id);
    expect(dust).toMatchObject({ status: "completed", step: "below_minimum", amount: 500_000n });
    expect(await usdtBalance(t.devnet, order.address)).toBe(500_000n);
    expect(await t.events(order.id)).not.toContain("sweep_completed");

    await t.pay(order.address, 1_500_000n);
    t.mine(1);
    await t.finalize();
    expect(await settlementOf(t, order.id)).toMatchObject({ status: "waiting" });
    const swept = await sweepUntilSettled(t, order.id);
    expect(swept).toMatchObject({ status: "completed", step: "swept", amount: 2_000_000n });
    expect(await usdtBalance(t.devnet, order.address)).toBe(0n);
  });
});

describe("sweeper with an empty hot wallet", () => {
  let t: ChainTest;
  let hot: { privateKey: string; address: string };
  beforeAll(async () => {
    ({ t, hot } = await startWalletChainTest({ SWEEP_ENABLED: "true" }));
    await t.scanner.sync();
  });
  afterAll(async () => {
    await t.close();
  });

  it("fails after its attempts with sweep_failed {reason, attempt, step}; retry-sweep finishes it once funded", async () => {
    // The sweeper's own log lines are captured: no key or seed may appear in them.
    const lines: string[] = [];
    const ctx = await createContext(t.config, {
      database: t.testDb.database,
      clock: t.clock,
      chain: t.ctx.chain,
      log: createLogger({ level: "debug", destination: { write: (line: string) => lines.push(line) } }),
    });
    const order = await paidOrder(t, "30", 30_000_000n);
    const failed = await sweepUntilSettled(t, order.id, SWEEP_MAX_ATTEMPTS + 2, ctx);
    expect(failed).toMatchObject({ status: "failed", attempts: SWEEP_MAX_ATTEMPTS });
    const [event] = await t.ctx.db.query.orderEvents.findMany({
      where: (e, { and, eq: equals }) =>
        and(equals(e.orderId, order.id), equals(e.eventType, "sweep_failed")),
    });
    expect(event?.payload).toMatchObject({ attempt: SWEEP_MAX_ATTEMPTS });
    expect((event?.payload as { reason: string }).reason).toMatch(/balance is not sufficient|does not exist/);
    expect(["fund", "fund_sent"]).toContain((event?.payload as { step: string }).step);
    expect(await usdtBalance(t.devnet, order.address)).toBe(30_000_000n);

    await t.devnetPost("/devnet/fund", { address: hot.address, trx: "100", solidify: true });
    await retrySweep(ctx, order.id);
    const settled = await sweepUntilSettled(t, order.id, 12, ctx);
    expect(settled).toMatchObject({ status: "completed", step: "swept", amount: 30_000_000n });
    expect(await usdtBalance(t.devnet, order.address)).toBe(0n);

    const log = lines.join("");
    expect(log).toContain("sweep failed");
    expect(log).toContain("sweep completed");
    const [address] = await t.ctx.db.select().from(addresses).where(eq(addresses.address, order.address));
    const depositKey = privateKeyToHex(derivePrivateKey(TEST_MNEMONIC, address?.derivationIndex ?? -1));
    for (const secret of [
      hot.privateKey,
      depositKey,
      TEST_MNEMONIC,
      TEST_MNEMONIC.split(" ").slice(0, 3).join(" "),
    ]) {
      expect(log.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  });
});

describe("sweeper switched off or contended", () => {
  let t: ChainTest;
  afterAll(async () => {
    await t.close();
  });

  it("queues nothing with SWEEP_ENABLED=false, and only one of two racing sweepers claims a settlement", async () => {
    t = await startChainTest({ env: { SWEEP_ENABLED: "false" } });
    await t.scanner.sync();
    const order = await paidOrder(t, "10", 10_000_000n);
    expect((await t.orderRow(order.id)).status).toBe("confirmed");
    expect(await settlementOf(t, order.id)).toBeUndefined();
    expect(await runDueSweeps(t.ctx)).toEqual({ claimed: 0, completed: 0, failed: 0 });

    // Two workers with sweeping on, racing for one due settlement: the lease gives it to one.
    const on = await startChainTest({ env: { SWEEP_ENABLED: "true" }, database: t.testDb.database });
    try {
      await on.ctx.db.insert(settlements).values({
        id: "00000000-0000-4000-8000-00000000a001",
        orderId: order.id,
        address: order.address,
        status: "waiting",
        nextAttemptAt: on.clock.now(),
        createdAt: on.clock.now(),
        updatedAt: on.clock.now(),
      });
      const runs = await Promise.all([
        runDueSweeps(on.ctx, { owner: "worker-a" }),
        runDueSweeps(on.ctx, { owner: "worker-b" }),
      ]);
      expect(runs.map((r) => r.claimed).sort()).toEqual([0, 1]);
    } finally {
      await on.close();
    }
    // Two chain tests (two devnets, two migrated PGlite contexts) start here: on a loaded machine
    // that alone outlasted the default 30 s.
  }, 120_000);
});
