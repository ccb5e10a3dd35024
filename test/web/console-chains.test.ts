/// <reference lib="dom" />
/**
 * The console per chain, in a real Chromium at a 1440 px desktop and a 390 px phone, served by the
 * real app with tron, ethereum (Anvil, over JSON-RPC) and bsc (a node that does not answer): the
 * overview's amounts name their currencies and say when they add two, its table gives each chain and
 * currency its own figures, and the address pool shows each chain family's; the wallet page shows the
 * ethereum hot wallet's ETH (six decimals, the exact wei in its title) and USDT and the cold wallet's
 * USDC, says bsc's node did not answer, and still loads; the Payouts page shows the float per chain
 * and token: ethereum's USDT less a payout in flight, short for an approved one, its USDC, and bsc's
 * and TRON's nodes that did not answer. Nothing is wider than the viewport and axe-core finds
 * nothing serious. Screenshots go to test-artifacts/console-chains/ (not committed).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import axeCore from "axe-core";
import { computeAddress, Wallet } from "ethers";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { createScanner } from "../../src/chain/scanner.js";
import { orders } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { creditMerchant } from "../../src/ledger/post-ledger.js";
import { decidePayout } from "../../src/payouts/decide-payout.js";
import { runEvmPayouts } from "../../src/payouts/evm-send.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, listenLocal, type TestApp } from "../helpers/app.js";
import { launchChromium } from "../helpers/chromium.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { addMerchant } from "../payments/helpers.js";

const ARTIFACTS = join(process.cwd(), "test-artifacts", "console-chains");
const WIDTHS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;
const HOT_KEY = "3b".repeat(32);
const HOT = computeAddress("0x" + HOT_KEY).toLowerCase();
const COLD = "0x" + "c1".repeat(20);

const eth = evmDevnetForFile({ chainId: 31337 });
let t: TestApp;
let base: string;
let browser: Browser;
const contexts = new Map<string, BrowserContext>();
const problems: string[] = [];

beforeAll(async () => {
  await ensureWebBuild();
  t = await createTestApp({
    env: {
      CHAINS: "tron,ethereum,bsc",
      POOL_MIN_FREE: "3",
      EVM_HOT_WALLET_PRIVATE_KEY: HOT_KEY,
      EVM_COLD_WALLET_ADDRESS: COLD,
      ...evmChainEnv("ethereum", eth()),
      BSC_NETWORK: "mainnet",
      BSC_RPC_URL: "http://127.0.0.1:1",
    },
  });
  t.clock.set(new Date());
  const shop = await addMerchant(t.ctx, "Chains Shop");
  await fillAddressPools(t.ctx);
  // Orders paid in full on three (chain, currency) pairs, created today.
  const now = t.clock.now();
  for (const [chain, currency, amount] of [
    ["tron", "USDT", 10_000_000n],
    ["ethereum", "USDT", 4_000_000n],
    ["ethereum", "USDC", 7_000_000n],
  ] as const) {
    const id = newId();
    await t.ctx.db.insert(orders).values({
      id,
      merchantId: shop.id,
      externalId: `fx-${id}`,
      amountExpected: amount,
      amountReceived: amount,
      network: "devnet",
      status: "confirmed",
      address: `fx-${id}`,
      callbackUrl: "https://merchant.example.com/cb",
      expiresAt: new Date(now.getTime() + 1_800_000),
      createdAt: now,
      updatedAt: now,
      chain,
      currency,
    });
  }
  await eth().rpc("eth_sendTransaction", [
    // 1.234567891234567891 ETH: more digits than a float keeps.
    { from: eth().faucetAddress, to: HOT, value: "0x112210f4c023b6d3" },
  ]);
  await sendToken(eth(), eth().usdtContract, HOT, 25_000_000n);
  await sendToken(eth(), eth().usdcContract, COLD, 7_250_000n);
  // A customer's static address paid in USDT and in USDC: deposits in two currencies.
  const created = await t.app.inject({
    method: "POST",
    url: "/api/v1/deposit-addresses",
    headers: { "x-api-key": shop.apiKey, "content-type": "application/json" },
    payload: JSON.stringify({
      customer_ref: "c-1",
      callback_url: "https://merchant.example.com/cb",
      chain: "ethereum",
    }),
  });
  const customer = (created.json() as { address: string }).address;
  await sendToken(eth(), eth().usdtContract, customer, 1_500_000n);
  await sendToken(eth(), eth().usdcContract, customer, 2_250_000n);
  await eth().mine(1);
  const scanner = createScanner(t.ctx, {
    chain: t.ctx.chains.get("ethereum")!,
    retry: FAST_RETRY,
    maxIdleMs: 50,
  });
  await scanner.sync();
  // Final at the chain's finality and CONFIRMATIONS (19 by default), whichever is later.
  await eth().mine(Math.max(eth().finalityDepth, t.ctx.config.confirmations) + 1);
  await scanner.sync();
  // Ethereum payouts: 5 USDT submitted (in flight, not yet broadcast), then 30 USDT approved.
  await creditMerchant(t.ctx.db, {
    merchantId: shop.id,
    currency: "USDT",
    amount: 100_000_000n,
    kind: "payment_received",
    refType: "test",
    refId: "seed",
  });
  const approvedPayout = async (amount: string) => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/payouts",
      headers: { "x-api-key": shop.apiKey },
      payload: {
        external_id: `po-${newId()}`,
        amount,
        address: Wallet.createRandom().address,
        chain: "ethereum",
        currency: "USDT",
      },
    });
    if (res.statusCode !== 201) throw new Error(`payout not created: ${res.body}`);
    await decidePayout(t.ctx, {
      id: res.json().id as string,
      decision: "approve",
      actor: { kind: "operator", id: "op-2", label: "second operator" },
    });
  };
  await approvedPayout("5");
  const round = await runEvmPayouts(t.ctx, "ethereum", { owner: "console-test" });
  if (round.submitted !== 1) throw new Error(`the 5 USDT payout was not submitted: ${JSON.stringify(round)}`);
  await approvedPayout("30");

  base = await listenLocal(t.app);
  browser = await launchChromium();
  const cookie = (await adminCookie(t.app)).split("=");
  for (const size of WIDTHS) {
    const context = await browser.newContext({
      viewport: { width: size.width, height: size.height },
      deviceScaleFactor: 1,
      bypassCSP: true,
    });
    await context.addCookies([{ name: cookie[0] ?? "", value: cookie.slice(1).join("="), url: base }]);
    contexts.set(size.name, context);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  for (const context of contexts.values()) await context.close();
  await browser?.close();
  await t?.close();
});

async function open(size: (typeof WIDTHS)[number], path: string, ready: string): Promise<Page> {
  const page = await (contexts.get(size.name) as BrowserContext).newPage();
  page.on("pageerror", (error) => problems.push(`${path}: ${error.message}`));
  await page.goto(base + path);
  await page.getByTestId(ready).first().waitFor({ timeout: 30_000 });
  return page;
}

async function expectClean(page: Page, name: string, size: (typeof WIDTHS)[number]): Promise<void> {
  const [scrollWidth, innerWidth] = await page.evaluate(() => [
    document.documentElement.scrollWidth,
    window.innerWidth,
  ]);
  expect(scrollWidth, `${name} at ${size.width} px is wider than the viewport`).toBeLessThanOrEqual(
    innerWidth ?? 0,
  );
  await page.addScriptTag({ content: axeCore.source });
  const serious = await page.evaluate(async () => {
    type Violation = { id: string; impact: string };
    const { axe } = window as unknown as {
      axe: { run: (context: Document, options: object) => Promise<{ violations: Violation[] }> };
    };
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => v.id);
  });
  expect(serious, `${name} at ${size.width} px`).toEqual([]);
  mkdirSync(join(ARTIFACTS, size.name), { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, size.name, `${name}.png`), fullPage: true });
}

describe("the console per chain", () => {
  for (const size of WIDTHS) {
    it(`shows stats per chain and currency on the overview (${size.name})`, async () => {
      const page = await open(size, "/admin", "stats-by-chain");
      // Today adds 10 + 4 USDT and 7 USDC, and says so.
      await expect
        .poll(() => page.getByTestId("stats-today-received").innerText())
        .toBe("21.000000 USDC + USDT");
      expect(await page.getByTestId("stats-today-summed").innerText()).toContain("Sum across USDC and USDT");
      const row = (chain: string, currency: string) =>
        page.getByTestId(`stats-by-chain-${chain}-${currency}`).innerText();
      expect(await row("ethereum", "USDC")).toMatch(/Ethereum\s+USDC\s+7\.000000 USDC/);
      expect(await row("ethereum", "USDT")).toMatch(/Ethereum\s+USDT\s+4\.000000 USDT/);
      expect(await row("tron", "USDT")).toMatch(/TRON\s+USDT\s+10\.000000 USDT/);
      // bsc is enabled and has no orders: its rows show zeros in their own currency.
      expect(await row("bsc", "USDT")).toMatch(/BNB Smart Chain\s+USDT\s+0\.000000 USDT/);
      // Deposits in two currencies: said beside their amounts, then each in its own currency.
      expect(await page.getByTestId("stats-deposits-total").innerText()).toBe("2 · 3.750000 USDC + USDT");
      expect(await page.getByTestId("stats-deposits-summed").innerText()).toBe("Sum across USDC and USDT.");
      expect(await page.getByTestId("stats-deposits-ethereum-USDC").innerText()).toMatch(
        /Ethereum USDC, all time\s+1 · 2\.250000 USDC/,
      );
      expect(await page.getByTestId("stats-deposits-ethereum-USDT").innerText()).toMatch(
        /Ethereum USDT, all time\s+1 · 1\.500000 USDT/,
      );
      // The 7-day chart adds the currencies too, and says so.
      expect(await page.getByText("Received, last 7 days (UTC), sum across USDC and USDT").count()).toBe(1);
      expect(await page.getByTestId("address-pool-evm").innerText()).toMatch(/Free\s+3/);
      expect(await page.getByTestId("address-pool-tron").innerText()).toMatch(/Free\s+3/);
      await expectClean(page, "overview", size);
      await page.close();
    });

    it(`shows each EVM chain's wallets, and a chain whose node fails, on the wallet page (${size.name})`, async () => {
      const page = await open(size, "/admin/wallet", "evm-wallets");
      const native = page.getByTestId("evm-wallet-ethereum-native");
      expect(await native.innerText()).toBe("1.234567 ETH");
      expect(await native.getAttribute("title")).toBe("1.234567891234567891 ETH");
      const ethereum = await page.getByTestId("evm-wallet-ethereum").innerText();
      expect(ethereum).toMatch(/USDT\s+25\.000000 USDT/);
      expect(ethereum).toMatch(/USDC\s+7\.250000 USDC/);
      expect(await page.getByTestId("evm-wallet-bsc-error").innerText()).toContain(
        "BNB Smart Chain node did not answer",
      );
      expect(await page.getByTestId("evm-wallet-bsc-native").innerText()).toBe("BNB unavailable");
      await expectClean(page, "wallet", size);
      await page.close();
    });

    it(`shows the float per chain and token on the Payouts page (${size.name})`, async () => {
      const page = await open(size, "/admin/payouts", "float-ethereum-USDT");
      const card = (chain: string, currency: string, part: string) =>
        page.getByTestId(`float-${chain}-${currency}-${part}`).innerText();
      // 25 USDT held, 5 in flight: 20 available, 10 short of the 30 approved.
      expect(await card("ethereum", "USDT", "available")).toBe("20.000000 USDT");
      expect(await card("ethereum", "USDT", "balance")).toBe("25.000000 USDT");
      expect(await card("ethereum", "USDT", "in-flight")).toBe("5.000000 USDT (1)");
      expect(await card("ethereum", "USDT", "approved")).toBe("30.000000 USDT (1)");
      expect(await card("ethereum", "USDT", "low")).toBe("10.000000 USDT short for 1 approved payout.");
      expect(await page.getByTestId("float-low").innerText()).toContain("Ethereum USDT");
      expect(await card("ethereum", "USDC", "available")).toBe("0.000000 USDC");
      expect(await page.getByTestId("float-ethereum-USDC-low").count()).toBe(0);
      // The nodes that do not answer: their cards say so, the page still loads.
      expect(await card("bsc", "USDT", "error")).toBe("BNB Smart Chain node did not answer");
      expect(await card("bsc", "USDT", "available")).toBe("—");
      expect(await card("tron", "USDT", "error")).toBe("TRON node did not answer");
      expect(await page.getByTestId("float-evm-address").innerText()).toBe(computeAddress("0x" + HOT_KEY));
      await expectClean(page, "payouts-float", size);
      await page.close();
    });
  }

  it("raised no page errors", () => {
    expect(problems).toEqual([]);
  });
});
