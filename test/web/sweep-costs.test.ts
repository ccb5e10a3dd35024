/// <reference lib="dom" />
import { eq, sql } from "drizzle-orm";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { createContext, type Context } from "../../src/context.js";
import { sweepCosts } from "../../src/db/schema.js";
import { buildApp, type App } from "../../src/http/app.js";
import { createLogger } from "../../src/logger.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { newAccount, paidOrder, stake, sweepUntilSettled } from "../sweeps/delegate-helpers.js";
import { formatAmount } from "../../src/money.js";
import { launchChromium } from "../helpers/chromium.js";
import { listenLocal } from "../helpers/app.js";

// The wallet page in a real Chromium: one sweep paid in burn mode, then the deployment switched to
// delegate mode with a staked hot wallet and two more sweeps; the page shows the stake and what the
// sweeps cost per mode, over 7 days and over all time, as the ledger recorded them; and an EVM
// chain's sweep costs in its native coin over the same windows.
const EVM_ADDRESS = "0x00000000000000000000000000000000000000bb";
// Legs swept now, and one (USDC, round 1) swept 8 days ago: all time only.
const DAY_MS = 86_400_000;
const EVM_LEGS = [
  {
    round: 1,
    currency: "USDT",
    ago: 0,
    gas: 21_000n * 3_000_000_007n,
    sweep: 51_234n * 2_000_000_001n,
    dust: 9_876_543_210_123n,
  },
  {
    round: 2,
    currency: "USDT",
    ago: 0,
    gas: 0n,
    sweep: 48_000n * 1_500_000_000n,
    dust: 1_000_000_000_000_001n,
  },
  {
    round: 1,
    currency: "USDC",
    ago: 8 * DAY_MS,
    gas: 21_000n * 7_000_000_000n,
    sweep: 50_000n * 7_000_000_000n,
    dust: 5n,
  },
];
let t: ChainTest;
let delegateCtx: Context;
let app: App;
let browser: Browser;
let base: string;

beforeAll(async () => {
  await ensureWebBuild();
  const hot = await newAccount();
  const cold = await newAccount();
  const env = {
    HOT_WALLET_PRIVATE_KEY: hot.privateKey,
    COLD_WALLET_ADDRESS: cold.address,
    SWEEP_ENABLED: "true",
  };
  t = await startChainTest({ env });
  t.clock.set(new Date());
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "200000", solidify: true });
  await t.scanner.sync();
  const burnt = await paidOrder(t, "4", 4_000_000n);
  expect((await sweepUntilSettled(t, burnt.id))?.status).toBe("completed");

  await stake(t, hot.privateKey, 100_000, "ENERGY");
  await stake(t, hot.privateKey, 20_000, "BANDWIDTH");
  delegateCtx = await createContext(
    { ...t.config, sweepMode: "delegate" },
    {
      database: t.testDb.database,
      clock: t.clock,
      chain: t.ctx.chain,
      log: createLogger({ level: "silent" }),
    },
  );
  for (const amount of ["5", "6"]) {
    const order = await paidOrder(t, amount, BigInt(amount) * 1_000_000n);
    expect((await sweepUntilSettled(t, order.id, 30, delegateCtx))?.status).toBe("completed");
  }
  // One delegate sweep happened a month ago: in the all-time figures, not in the week's.
  const [old] = await t.ctx.db.select().from(sweepCosts).where(eq(sweepCosts.mode, "delegate")).limit(1);
  await t.ctx.db.execute(
    sql`UPDATE sweep_costs SET finished_at = finished_at - interval '30 days' WHERE order_id = ${old!.orderId}::uuid`,
  );

  // An EVM chain's swept legs, as the EVM sweeper records them (test/sweeps/evm-static-sweeps.test.ts
  // checks those figures against the receipts on Anvil): one address swept in two rounds, its dust
  // after the second counted, not the first's.
  const now = new Date().toISOString();
  await t.ctx.db
    .execute(sql`INSERT INTO settlements (id, address_id, address, status, created_at, updated_at, round, chain)
    VALUES ('01a2a000-0000-7000-8000-000000000001', (SELECT min(id) FROM addresses), ${EVM_ADDRESS}, 'completed', ${now}::timestamptz,
      ${now}::timestamptz, 2, 'ethereum')`);
  for (const leg of EVM_LEGS)
    await t.ctx.db
      .execute(sql`INSERT INTO evm_sweep_legs (settlement_id, round, currency, chain, mode, address,
        token, units, decimals, state, gas_cost_wei, sweep_gas_cost_wei, dust_wei, created_at, updated_at, swept_at)
      VALUES ('01a2a000-0000-7000-8000-000000000001', ${leg.round}, ${leg.currency}, 'ethereum', 'topup', ${EVM_ADDRESS},
        '0x00000000000000000000000000000000000000aa', 1000000, 6, 'swept', ${leg.gas}::numeric,
        ${leg.sweep}::numeric, ${leg.dust}::numeric, ${now}::timestamptz, ${now}::timestamptz,
        ${new Date(Date.now() + leg.round * 1000 - leg.ago).toISOString()}::timestamptz)`);

  app = await buildApp(delegateCtx);
  base = await listenLocal(app);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await t?.close();
});

describe("wallet page, sweep costs", () => {
  it("shows the stake, the average and total sweep cost per mode over 7 days and all time, and an EVM chain's sweep costs", async () => {
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`${base}/admin`);
    await page.getByTestId("password").fill(TEST_ADMIN_PASSWORD);
    await page.getByTestId("password").press("Enter");
    await page.getByTestId("nav-wallet").click();
    const row = (mode: string) => page.getByTestId(`sweep-cost-${mode}`).locator("td").allInnerTexts();

    const costs = await t.ctx.db.select().from(sweepCosts);
    const trx = (sun: bigint) => `${formatAmount(sun)} TRX`;
    const burn = costs.filter((c) => c.mode === "burn");
    const delegate = costs.filter((c) => c.mode === "delegate");
    expect(burn).toHaveLength(1);
    expect(delegate).toHaveLength(2);
    const burnSun = burn[0]!.trxBurnt;
    // Burn mode paid the activation and the energy in TRX; delegate mode about the activation only.
    expect(burnSun).toBeGreaterThan(5_000_000n);
    const recent = delegate.filter((c) => c.finishedAt.getTime() > Date.now() - 7 * 86_400_000);
    expect(recent).toHaveLength(1);
    const allSun = delegate.reduce((sum, c) => sum + c.trxBurnt, 0n);

    await expect
      .poll(() => row("burn"))
      .toEqual(["burn", "1", trx(burnSun), trx(burnSun), "1", trx(burnSun), trx(burnSun)]);
    expect(await row("delegate")).toEqual([
      "delegate",
      "1",
      trx(recent[0]!.trxBurnt),
      trx(recent[0]!.trxBurnt),
      "2",
      trx(allSun / 2n),
      trx(allSun),
    ]);
    // The EVM chain's sweeps in ETH, exactly: the week's two legs, all three legs' gas all time,
    // the latest sweep's dust only.
    const eth = (wei: bigint) => `${wei / 10n ** 18n}.${(wei % 10n ** 18n).toString().padStart(18, "0")} ETH`;
    const sum = (legs: typeof EVM_LEGS, of: (l: (typeof EVM_LEGS)[number]) => bigint) =>
      legs.reduce((total, l) => total + of(l), 0n);
    const week = EVM_LEGS.filter((l) => l.ago === 0);
    const weekTotal = sum(week, (l) => l.gas + l.sweep);
    const gas = sum(EVM_LEGS, (l) => l.gas);
    const sweep = sum(EVM_LEGS, (l) => l.sweep);
    expect(await page.getByTestId("evm-sweep-cost-ethereum").locator("td").allInnerTexts()).toEqual([
      "Ethereum",
      "2",
      eth(weekTotal / 2n),
      eth(weekTotal),
      "3",
      eth((gas + sweep) / 3n),
      eth(gas),
      eth(sweep),
      eth(gas + sweep),
      "0.001000000000000001 ETH",
    ]);
    const stakePanel = await page.getByTestId("stake").innerText();
    expect(stakePanel).toContain("100,000.000000 TRX");
    expect(stakePanel).toMatch(/Delegations open\s+0/);
    expect(await page.getByTestId("system").innerText()).toMatch(/Sweep mode\s+delegate/);
    expect(problems).toEqual([]);
  });
});
