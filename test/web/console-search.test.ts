/// <reference lib="dom" />
/**
 * Finding and acting on an order from a phone, in a real Chromium over a real demo run
 * (test/web/console-demo.ts): the overview lists the order whose webhook receiver answers 500 first,
 * under "Failing webhooks"; the search box finds that order by the hash of the transfer that paid it
 * and opens its page, which says its webhook is failing; a key of nothing says so. Each page is
 * checked for overflow at 390 px. A refund waiting for its payer shows its link's expiry and issues a
 * new one; a sent payout offers no webhook retry and says why.
 */
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { transfers } from "../../src/db/schema.js";
import { adminCookie } from "../helpers/admin.js";
import { launchChromium } from "../helpers/chromium.js";
import { startConsoleDemo, type ConsoleDemo } from "./console-demo.js";

let demo: ConsoleDemo;
let browser: Browser;
let phone: BrowserContext;
const errors: string[] = [];

beforeAll(async () => {
  await ensureWebBuild();
  demo = await startConsoleDemo();
  browser = await launchChromium();
  const [name, ...value] = (await adminCookie(demo.app)).split("=");
  phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
  await phone.addCookies([{ name: name ?? "", value: value.join("="), url: demo.base }]);
}, 600_000);

afterAll(async () => {
  await phone?.close();
  await browser?.close();
  await demo?.close();
});

async function open(path: string): Promise<Page> {
  const page = await phone.newPage();
  page.on("pageerror", (error) => errors.push(`${path}: ${error.message}`));
  await page.goto(demo.base + path);
  return page;
}

const text = (page: Page) => page.evaluate(() => document.body.innerText);
const fitsTheScreen = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe("on a 390 px phone", () => {
  it("the overview lists the order whose webhook fails first, with the receiver's answer", async () => {
    const page = await open("/admin");
    const row = page.locator(`[data-testid="failing-webhook"][data-subject-id="${demo.orders.failing}"]`);
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    expect(await row.innerText()).toMatch(/NW-1004[\s\S]*HTTP 500/);
    // Failing webhooks come before everything else on the page.
    const headings = await page.locator("main h2").allInnerTexts();
    expect(headings[0]).toBe("Failing webhooks");
    // Only the failing order is listed: the others' receivers answered 200.
    expect(await page.getByTestId("failing-webhook").count()).toBe(1);
    expect(await fitsTheScreen(page)).toBe(true);
    await row.getByRole("link").click();
    await expect.poll(() => page.url()).toBe(`${demo.base}/admin/orders/${demo.orders.failing}`);
    await page.close();
  });

  it("the search box finds an order by its transaction hash and opens it", async () => {
    const [paid] = await demo.t.ctx.db
      .select({ txHash: transfers.txHash })
      .from(transfers)
      .where(eq(transfers.orderId, demo.orders.failing));
    expect(paid).toBeDefined();
    const page = await open("/admin/orders");
    await page.getByTestId("search-input").fill(paid!.txHash);
    await page.getByTestId("search-submit").click();
    await expect
      .poll(() => page.url(), { timeout: 30_000 })
      .toBe(`${demo.base}/admin/orders/${demo.orders.failing}`);
    await expect.poll(() => page.getByTestId("webhook-failing").count(), { timeout: 30_000 }).toBe(1);
    expect(await fitsTheScreen(page)).toBe(true);
    // Back returns to where the search started, not to a search page that reopens the order.
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${demo.base}/admin/orders`);
    await page.close();
  });

  it("opens the single hit of a stray's hash, and says when nothing matches", async () => {
    const page = await open(`/admin/search?q=${encodeURIComponent(demo.strayTxHash)}`);
    // A stray's hash is one hit: its page opens.
    await expect
      .poll(() => page.url(), { timeout: 30_000 })
      .toBe(`${demo.base}/admin/stray-transfers/${demo.strayId}`);
    await page.close();
    const none = await open("/admin/search?q=NW-9999");
    await expect.poll(() => none.getByTestId("search-empty").count(), { timeout: 30_000 }).toBe(1);
    expect(await text(none)).toContain(
      "Nothing has the ID, reference, address or transaction hash “NW-9999”",
    );
    expect(await fitsTheScreen(none)).toBe(true);
    await none.close();
  });
});

describe("refunds and payouts offer what their state allows", () => {
  it("a refund waiting for its payer shows when its link expires, and a new link to copy that works", async () => {
    const page = await open(`/admin/payouts/${demo.refund.id}`);
    const panel = page.getByTestId("claim-link");
    await expect.poll(() => panel.count(), { timeout: 30_000 }).toBe(1);
    expect(await panel.innerText()).toMatch(/It expires/);
    // Approve waits for the payer's address, and says so.
    expect(await page.getByTestId("approve-payout").count()).toBe(0);
    expect(await page.getByTestId("payout-unavailable").innerText()).toContain(
      "Approve: It waits for the payer's address",
    );
    await page.getByTestId("reissue-claim-link").click();
    await expect.poll(() => page.getByTestId("claim-url").count(), { timeout: 30_000 }).toBe(1);
    const url = await page.getByTestId("claim-url").innerText();
    expect(url).toMatch(/\/refund\/[A-Za-z0-9_-]{20,}$/);
    expect(await fitsTheScreen(page)).toBe(true);
    await page.close();
    // The new link opens the payer's page; the one first given no longer does.
    const claim = await fetch(`${demo.base}/api/v1/refund-claims/${url.split("/").pop()}`);
    expect(claim.status).toBe(200);
    const old = await fetch(`${demo.base}/api/v1/refund-claims/${demo.refund.claimPath.split("/").pop()}`);
    expect(old.status).toBe(404);
  });

  it("a sent payout offers no retry of a webhook it never had, and says why", async () => {
    const page = await open(`/admin/payouts/${demo.payouts.sent}`);
    await expect.poll(() => page.getByTestId("payout-fields").count(), { timeout: 30_000 }).toBe(1);
    expect(await page.getByTestId("payout-retry-webhook").count()).toBe(0);
    for (const decision of ["approve-payout", "reject-payout", "cancel-payout"]) {
      expect(await page.getByTestId(decision).count(), decision).toBe(0);
    }
    expect(await page.getByTestId("payout-unavailable").innerText()).toMatch(/Retry webhook: No webhook/);
    await page.close();
  });
});

it("ran without a script error", () => {
  expect(errors).toEqual([]);
});
