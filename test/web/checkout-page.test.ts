/// <reference lib="dom" />
import type { Browser, BrowserContext, Page } from "playwright-core";
import QRCode from "qrcode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App } from "../../src/http/app.js";
import { createOrder } from "../../src/payments/create-order.js";
import { expireOrders } from "../../src/payments/expire-orders.js";
import { createWebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import { launchChromium } from "../helpers/chromium.js";
import { listenLocal } from "../helpers/app.js";
import { startReceiver, type Receiver } from "../webhooks/fixtures.js";

// The hosted checkout page in a real Chromium, served by the real app, with orders paid over the
// devnet through TronWeb and picked up by the real scanner and confirmer.
let t: ChainTest;
let app: App;
let base: string;
let browser: Browser;
let context: BrowserContext;
let hook: Receiver;
const problems: string[] = [];

beforeAll(async () => {
  await ensureWebBuild();
  t = await startChainTest();
  t.clock.set(new Date()); // the page counts down with the browser's clock
  app = await buildApp(t.ctx);
  base = await listenLocal(app);
  hook = await startReceiver();
  browser = await launchChromium();
  context = await browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await hook?.close();
  await app?.close();
  await t?.close();
});

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

/** An order whose webhook goes to the real receiver (answering 200), paid `micro` and confirmed. */
async function paidOrder(amount: string, micro: bigint): Promise<{ id: string; address: string }> {
  const { order } = await createOrder(
    t.ctx,
    { id: t.merchantId },
    { externalId: `outcome-${amount}-${micro}`, amount, currency: "USDT", callbackUrl: hook.url },
  );
  await t.pay(order.address, micro);
  t.mine(1);
  await t.finalize();
  return { id: order.id, address: order.address };
}

async function deliverWebhooks(): Promise<void> {
  const deliverer = createWebhookDeliverer(t.ctx);
  try {
    await deliverer.deliverDue();
  } finally {
    await deliverer.close();
  }
}

describe("hosted checkout page", () => {
  it("shows a pending order: merchant, amount, QR of the address, a countdown, and copies the address", async () => {
    const order = await t.order("10.5", { expiresIn: 900 });
    const page = await open(`/checkout/${order.id}`);
    await expect.poll(() => text(page, "headline")).toBe("Awaiting payment");
    expect(await text(page, "merchant")).toBe("Chain Shop");
    expect(await text(page, "amount")).toBe("10.5 USDT");
    expect(await text(page, "send-amount")).toBe("10.5");
    expect(await text(page, "address")).toBe(order.address);
    expect(await text(page, "countdown")).toMatch(/^Expires in 1[45]:\d\d$/);
    expect(await page.title()).toBe("Pay 10.5 USDT · Chain Shop");

    // The QR code encodes the deposit address itself: the same SVG as qrcode renders for it here.
    const qr = await page.getByTestId("qr").getAttribute("src");
    const svg = await QRCode.toString(order.address, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
    expect(qr).toBe(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
    expect(
      await page.getByTestId("qr").evaluate((img: HTMLImageElement) => img.naturalWidth),
    ).toBeGreaterThan(0);

    await page.getByTestId("copy-address").click();
    await expect.poll(() => text(page, "copy-address")).toBe("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(order.address);
    await page.getByTestId("copy-send-amount").click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("10.5");

    // Nothing of the merchant's side reaches the payer's page.
    const html = await page.content();
    expect(html).not.toContain("merchant.example.com");
    expect(html).not.toContain("chain-");
    await page.close();
  });

  it("follows a payment live, without a reload: detected with confirmations, then received", async () => {
    const order = await t.order("25");
    const page = await open(`/checkout/${order.id}`);
    await expect.poll(() => text(page, "headline")).toBe("Awaiting payment");
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));

    const txId = await t.pay(order.address, 25_000_000n);
    t.mine(1);
    await t.scanner.sync();
    await expect.poll(() => text(page, "headline"), { timeout: 10_000 }).toBe("Payment detected");
    expect(await text(page, "detail")).toMatch(/^Waiting for confirmations: \d of 3\.$/);
    expect(await page.getByTestId("address").count()).toBe(0);

    await t.finalize();
    expect((await t.orderRow(order.id)).status).toBe("confirmed");
    await expect.poll(() => text(page, "headline"), { timeout: 10_000 }).toBe("Payment received");
    expect(await text(page, "detail")).toBe("25 USDT received. Thank you!");
    expect(await page.getByTestId("explorer").getAttribute("href")).toContain(txId);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    await page.close();
  });

  it("asks for the rest of an underpaid order, computed without floats", async () => {
    const order = await t.order("20.1");
    await t.pay(order.address, 12_350_000n);
    t.mine(1);
    await t.finalize();
    expect((await t.orderRow(order.id)).status).toBe("underpaid");
    const page = await open(`/checkout/${order.id}`);
    await expect.poll(() => text(page, "headline")).toBe("Partially paid");
    expect(await text(page, "detail")).toBe(
      "Received 12.35 of 20.1 USDT. Send the remaining 7.75 USDT to the same address.",
    );
    expect(await text(page, "send-amount")).toBe("7.75");
    expect(await text(page, "address")).toBe(order.address);
    await page.close();
  });

  it("keeps telling the payer what is missing once an underpaid order's webhook is delivered", async () => {
    const order = await paidOrder("10", 9_500_000n);
    expect((await t.orderRow(order.id)).status).toBe("underpaid");
    const page = await open(`/checkout/${order.id}`);
    await expect.poll(() => text(page, "headline")).toBe("Partially paid");
    expect(await text(page, "detail")).toBe(
      "Received 9.5 of 10 USDT. Send the remaining 0.5 USDT to the same address.",
    );
    expect(await text(page, "send-amount")).toBe("0.5");
    expect(await text(page, "address")).toBe(order.address);

    await deliverWebhooks();
    expect((await t.orderRow(order.id)).status).toBe("completed");
    await page.reload();
    await expect.poll(() => page.getByTestId("detail").count()).toBe(1);
    expect(await text(page, "headline")).toBe("Partially paid");
    expect(await text(page, "detail")).toBe(
      "Received 9.5 of 10 USDT: 0.5 USDT is missing. This address no longer accepts payments for this order; do not send more to it. Contact Chain Shop to pay the remaining 0.5 USDT.",
    );
    expect(await page.locator("body").innerText()).not.toContain("Thank you");
    expect(await page.getByTestId("address").count()).toBe(0);
    expect(await page.getByTestId("qr").count()).toBe(0);
    await page.close();
  });

  it("says an overpaid order was overpaid before and after its webhook is delivered", async () => {
    const order = await paidOrder("10", 12_250_000n);
    expect((await t.orderRow(order.id)).status).toBe("overpaid");
    const page = await open(`/checkout/${order.id}`);
    const said = "You sent 12.25 USDT, 2.25 more than the 10 asked. Contact Chain Shop about the difference.";
    await expect.poll(() => text(page, "headline")).toBe("Payment received");
    expect(await text(page, "detail")).toBe(said);
    await deliverWebhooks();
    expect((await t.orderRow(order.id)).status).toBe("completed");
    await page.reload();
    await expect.poll(() => page.getByTestId("detail").count()).toBe(1);
    expect(await text(page, "detail")).toBe(said);
    expect(await page.getByTestId("address").count()).toBe(0);
    await page.close();
  });

  it("tells the payer not to pay an expired order and hides its address", async () => {
    const order = await t.order("5", { expiresIn: 60 });
    t.clock.advance(61_000);
    expect((await expireOrders(t.ctx)).expired).toBeGreaterThanOrEqual(1);
    const page = await open(`/checkout/${order.id}`);
    await expect.poll(() => text(page, "headline")).toBe("This payment request has expired");
    expect(await text(page, "detail")).toBe(
      "Do not send funds to its address. If you already paid, contact Chain Shop.",
    );
    expect(await page.getByTestId("address").count()).toBe(0);
    expect(await page.getByTestId("qr").count()).toBe(0);
    t.clock.set(new Date());
    await page.close();
  });

  it("says payment not found for an unknown or malformed id", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-an-order"]) {
      const page = await open(`/checkout/${id}`);
      await expect.poll(() => text(page, "headline")).toBe("Payment not found");
      await page.close();
    }
  });

  it("ran without a script error or a Content-Security-Policy violation", () => {
    expect(problems.filter((p) => !p.includes("404"))).toEqual([]);
  });
});
