/// <reference lib="dom" />
/**
 * The hosted checkout page of orders on an EVM chain (DESIGN.md 16 "Checkout"), in a real Chromium
 * served by the real app with `ethereum` enabled on an Anvil devnet: the page names the chain and
 * the token, warns to send only that token on that chain, and its QR code is the EIP-681 transfer
 * request the checkout reply carries (the amount in the token's own units: 6 and 18 decimals). A
 * TRON order in the same deployment keeps the bare address as its QR. axe-core finds nothing serious.
 */
import axeCore from "axe-core";
import { eq } from "drizzle-orm";
import { getAddress } from "ethers";
import type { Browser, BrowserContext, Page } from "playwright-core";
import QRCode from "qrcode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orders } from "../../src/db/schema.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { createTestApp, listenLocal, type TestApp } from "../helpers/app.js";
import { launchChromium } from "../helpers/chromium.js";
import { evmDevnetForFile } from "../helpers/evm-devnet.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

const devnet = evmDevnetForFile();
let t: TestApp;
let shop: TestMerchant;
let base: string;
let browser: Browser;
let context: BrowserContext;
const problems: string[] = [];
let evmIndex = 0;

beforeAll(async () => {
  await ensureWebBuild();
  const d = devnet();
  t = await createTestApp({
    env: {
      POOL_MIN_FREE: "4",
      CHAINS: "tron,ethereum",
      ETHEREUM_NETWORK: "devnet",
      ETHEREUM_RPC_URL: d.rpcUrl,
      ETHEREUM_USDC_CONTRACT: d.usdcContract,
      // USDT here is the 18-decimal token, as on BSC: the QR's amount is in its own units.
      ETHEREUM_USDT_CONTRACT: d.usdt18Contract,
    },
  });
  t.clock.set(new Date());
  shop = await addMerchant(t.ctx, "Chain Shop");
  await fillAddressPool(t.ctx);
  base = await listenLocal(t.app);
  browser = await launchChromium();
  // axe-core is injected as a script: the page's Content-Security-Policy would refuse it.
  context = await browser.newContext({ bypassCSP: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/**
 * An order through the API. An EVM order is given a derived EVM deposit address, whatever the
 * address pool handed it (the EVM pool is another change's).
 */
async function order(
  chain: string,
  currency: string,
  amount: string,
): Promise<{ id: string; address: string }> {
  const res = await postOrder(t, shop.apiKey, orderBody({ chain, currency, amount }));
  expect(res.statusCode).toBe(201);
  const { id, address } = res.json() as { id: string; address: string };
  const evm = t.ctx.chains.get("ethereum");
  if (chain !== "ethereum" || !evm || evm.address.isValid(address)) return { id, address };
  const derived = evm.derivation.deriveAddress(t.ctx.config.evmWallet.xpub ?? "", 1000 + evmIndex++, 0);
  await t.ctx.db.update(orders).set({ address: derived }).where(eq(orders.id, id));
  return { id, address: derived };
}

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  await page.goto(base + path);
  return page;
}

const text = (page: Page, testId: string) => page.getByTestId(testId).innerText();

/** The data URL the page renders for `uri`: the QR code's content is exactly that text. */
async function qrOf(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

async function seriousAxe(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeCore.source });
  const found = await page.evaluate(async () => {
    const run = (
      window as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string }[] }> } }
    ).axe;
    return (await run.run()).violations.map((v) => `${v.id}(${v.impact})`);
  });
  return found.filter((v) => /\((serious|critical)\)/.test(v));
}

describe("checkout of an EVM order", () => {
  it("names USDC on Ethereum, warns, and shows the EIP-681 request as its QR code", async () => {
    const d = devnet();
    const o = await order("ethereum", "USDC", "12.34");
    const uri = `ethereum:${getAddress(d.usdcContract)}@${d.chainId}/transfer?address=${getAddress(o.address)}&uint256=12340000`;

    const res = await t.app.inject({ method: "GET", url: `/api/v1/checkout/${o.id}/status` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      chain: "ethereum",
      network: "devnet",
      currency: "USDC",
      chain_name: "Ethereum",
      token_standard: "ERC-20",
      address: getAddress(o.address),
      payment_uri: uri,
    });

    const page = await open(`/checkout/${o.id}`);
    await expect.poll(() => text(page, "headline")).toBe("Awaiting payment");
    expect(await text(page, "amount")).toBe("12.34 USDC");
    expect(await text(page, "chain")).toBe("USDC (ERC-20) on Ethereum (devnet)");
    expect(await text(page, "warning")).toBe(
      "Send only USDC on the Ethereum network (ERC-20). Other tokens or networks cannot be recovered.",
    );
    expect(await text(page, "address")).toBe(getAddress(o.address));
    await expect.poll(() => page.getByTestId("qr").getAttribute("src")).toBe(await qrOf(uri));
    expect(await page.getByTestId("qr").getAttribute("alt")).toBe("QR code of the payment request");
    expect(await seriousAxe(page)).toEqual([]);
    await page.close();
  });

  it("asks for an 18-decimal token's amount in its own units, exactly", async () => {
    const d = devnet();
    const o = await order("ethereum", "USDT", "0.000001");
    const res = await t.app.inject({ method: "GET", url: `/api/v1/checkout/${o.id}/status` });
    expect(res.json().payment_uri).toBe(
      `ethereum:${getAddress(d.usdt18Contract)}@${d.chainId}/transfer?address=${getAddress(o.address)}&uint256=1000000000000`,
    );
    const page = await open(`/checkout/${o.id}`);
    await expect
      .poll(() => page.getByTestId("qr").getAttribute("src"))
      .toBe(await qrOf(res.json().payment_uri));
    expect(await text(page, "chain")).toBe("USDT (ERC-20) on Ethereum (devnet)");
    await page.close();
  });

  it("asks for what is still owed, and for nothing once the order takes no payment", async () => {
    const d = devnet();
    const o = await order("ethereum", "USDC", "20.1");
    await t.ctx.db
      .update(orders)
      .set({ status: "underpaid", amountReceived: 12_350_000n })
      .where(eq(orders.id, o.id));
    const res = await t.app.inject({ method: "GET", url: `/api/v1/checkout/${o.id}/status` });
    expect(res.json().payment_uri).toBe(
      `ethereum:${getAddress(d.usdcContract)}@${d.chainId}/transfer?address=${getAddress(o.address)}&uint256=7750000`,
    );
    await t.ctx.db.update(orders).set({ status: "expired", amountReceived: 0n }).where(eq(orders.id, o.id));
    const expired = await t.app.inject({ method: "GET", url: `/api/v1/checkout/${o.id}/status` });
    expect(expired.json().payment_uri).toBeNull();
  });

  it("keeps a TRON order's page as it was: the bare address as QR, TRC20 on TRON", async () => {
    const o = await order("tron", "USDT", "3");
    const res = await t.app.inject({ method: "GET", url: `/api/v1/checkout/${o.id}/status` });
    expect(res.json()).toMatchObject({
      chain: "tron",
      chain_name: "TRON",
      token_standard: "TRC20",
      address: o.address,
      payment_uri: o.address,
    });
    const page = await open(`/checkout/${o.id}`);
    await expect.poll(() => text(page, "headline")).toBe("Awaiting payment");
    expect(await text(page, "chain")).toBe("USDT (TRC20) on TRON (devnet)");
    expect(await text(page, "warning")).toBe(
      "Send only USDT on the TRON network (TRC20). Other tokens or networks cannot be recovered.",
    );
    await expect.poll(() => page.getByTestId("qr").getAttribute("src")).toBe(await qrOf(o.address));
    expect(await page.getByTestId("qr").getAttribute("alt")).toBe("QR code of the deposit address");
    await page.close();
  });

  it("ran without a script error", () => {
    expect(problems).toEqual([]);
  });
});
