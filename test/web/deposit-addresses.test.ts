/// <reference lib="dom" />
import { eq } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { depositAddresses } from "../../src/db/schema.js";
import { createDepositAddress } from "../../src/deposits/create-deposit-address.js";
import { setDepositAddressStatus } from "../../src/deposits/set-deposit-address-status.js";
import { buildApp, type App } from "../../src/http/app.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import { launchChromium, openWatchedPage } from "../helpers/chromium.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { listenLocal } from "../helpers/app.js";

// The dashboard's Deposit addresses page and the overview's deposits, in a real Chromium against
// the real app; the deposits are real USDT transfers on the devnet, scanned and confirmed.
let t: ChainTest;
let app: App;
let base: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  await ensureWebBuild();
  t = await startChainTest();
  t.clock.set(new Date());
  await t.scanner.sync();
  app = await buildApp(t.ctx);
  base = await listenLocal(app);
  browser = await launchChromium();
  ({ page } = await openWatchedPage(browser, problems));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await t?.close();
});

const text = (testId: string) => page.getByTestId(testId).innerText();

describe("dashboard: deposit addresses", () => {
  it("finds an address by customer_ref, shows its deposits, disables and enables it; the overview counts deposits", async () => {
    const hook = "https://shop.example.com/deposits";
    const { depositAddress: alice } = await createDepositAddress(t.ctx, t.merchantId, {
      customerRef: "alice",
      callbackUrl: hook,
    });
    await createDepositAddress(t.ctx, t.merchantId, { customerRef: "bob", callbackUrl: hook });
    await t.pay(alice.address, 7_000_000n);
    t.mine(1);
    await t.pay(alice.address, 250_000n);
    t.mine(1);
    await t.finalize();

    await page.goto(`${base}/admin`);
    await page.getByTestId("password").fill(TEST_ADMIN_PASSWORD);
    await page.getByTestId("login").click();
    await expect.poll(() => page.getByRole("heading", { name: "Overview" }).count()).toBe(1);
    await expect.poll(() => text("stats-deposits-total")).toBe("2 · 7.250000 USDT");
    expect(await text("stats-deposits-today")).toBe("2 · 7.250000 USDT");
    // The recent deposits come from their own request: wait for them as for the stats.
    await expect.poll(() => page.getByTestId("recent-deposit").count()).toBe(2);

    await page.getByTestId("nav-deposit-addresses").click();
    await expect.poll(() => page.getByTestId("deposit-address-row").count()).toBe(2);
    await page.getByTestId("deposit-search").fill("alice");
    await page.getByTestId("deposit-search-go").click();
    await expect.poll(() => page.getByTestId("deposit-address-row").count()).toBe(1);
    expect(page.url()).toContain("customer_ref=alice");

    await page.getByTestId("deposit-address-alice").click();
    await expect.poll(() => text("deposit-address-address")).toBe(alice.address);
    expect(await text("deposit-address-count")).toBe("2");
    expect(await text("deposit-address-total")).toBe("7.250000 USDT");
    await expect.poll(() => page.getByTestId("deposit-row").count()).toBe(2);
    expect(await page.getByTestId("deposits").innerText()).toContain("below minimum");

    await page.getByTestId("deposit-address-toggle").click();
    await expect.poll(() => text("deposit-address-status")).toBe("Disabled");
    const [row] = await t.ctx.db.select().from(depositAddresses).where(eq(depositAddresses.id, alice.id));
    expect(row?.status).toBe("disabled");
    await page.getByTestId("deposit-address-toggle").click();
    await expect.poll(() => text("deposit-address-status")).toBe("Active");

    // A deposit to a disabled address is an incident on the overview, linking to the address.
    await setDepositAddressStatus(t.ctx, t.merchantId, alice.id, "disabled");
    await t.pay(alice.address, 3_000_000n);
    t.mine(1);
    await t.finalize();
    await page.goto(`${base}/admin`);
    await expect
      .poll(() => page.getByTestId("disabled-deposit-incident").count(), { timeout: 20_000 })
      .toBe(1);
    const incident = page.getByTestId("disabled-deposit-incident");
    expect(await incident.innerText()).toContain("3.000000 USDT from customer alice");
    expect(await incident.getByRole("link").getAttribute("href")).toBe(
      `/admin/deposit-addresses/${alice.id}`,
    );
    expect(problems).toEqual([]);
  }, 120_000);
});
