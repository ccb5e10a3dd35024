/// <reference lib="dom" />
/**
 * Resolutions in the dashboard, in a real Chromium against the real app: a stray transfer paid over
 * the devnet shows in the incidents and on the Strays page with its address's history; the order
 * page cancels a pending order, accepts an underpaid one and attaches the stray to a third. A
 * stray whose address's sweep failed (the hot wallet is empty) is queued again by the Strays page's
 * Retry sweep button.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App } from "../../src/http/app.js";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { addresses } from "../../src/db/schema.js";
import { and, desc, eq, isNull } from "drizzle-orm";
import { TronWeb } from "tronweb";
import { auditLog, settlements, strayTransfers } from "../../src/db/schema.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { SWEEP_MAX_ATTEMPTS } from "../../src/sweeps/sweep-plan.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { launchChromium, openWatchedPage } from "../helpers/chromium.js";
import { listenLocal } from "../helpers/app.js";

let t: ChainTest;
let app: App;
let base: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  await ensureWebBuild();
  // Sweeping on with an empty hot wallet: an address's sweep fails, for the Retry sweep button.
  const hot = await TronWeb.createAccount();
  const cold = await TronWeb.createAccount();
  t = await startChainTest({
    env: {
      POOL_MIN_FREE: "3",
      SWEEP_ENABLED: "true",
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: cold.address.base58,
    },
  });
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

describe("resolutions in the dashboard", () => {
  it("cancels, accepts and attaches a stray from the order page; strays are listed with their address", async () => {
    await page.goto(`${base}/admin`);
    await page.getByTestId("password").fill(TEST_ADMIN_PASSWORD);
    await page.getByTestId("login").click();
    await expect.poll(() => page.getByRole("heading", { name: "Overview" }).count()).toBe(1);

    // A stray: USDT to an address never handed out.
    await fillAddressPool(t.ctx);
    const [spare] = await t.ctx.db
      .select()
      .from(addresses)
      .where(eq(addresses.status, "free"))
      .orderBy(desc(addresses.derivationIndex))
      .limit(1);
    if (!spare) throw new Error("no free address");
    const txid = await t.pay(spare.address, 4_000_000n);
    t.mine(1);
    await t.finalize();

    await page.reload();
    await expect.poll(() => page.getByTestId("stray-incident").count(), { timeout: 20_000 }).toBe(1);
    await page.getByTestId("nav-strays").click();
    await expect.poll(() => page.getByTestId("strays").innerText()).toContain(spare.address);
    await page.getByTestId("strays").getByRole("link").first().click();
    await expect.poll(() => page.getByTestId("address-history").innerText()).toContain(spare.address);

    // Cancel a pending order.
    const pending = await t.order("3");
    await page.goto(`${base}/admin/orders/${pending.id}`);
    await page.getByTestId("resolution-reason").fill("customer asked");
    await page.getByTestId("cancel-order").click();
    await expect.poll(() => page.getByTestId("resolutions").innerText()).toContain("customer asked");
    expect((await t.orderRow(pending.id)).status).toBe("cancelled");
    // The server's actions follow: a cancelled order offers neither Cancel nor Accept.
    await expect.poll(() => page.getByTestId("cancel-order").count()).toBe(0);
    expect(await page.getByTestId("accept-order").count()).toBe(0);

    // Accept an underpaid one.
    const short = await t.order("10");
    await t.pay(short.address, 9_000_000n);
    t.mine(1);
    await t.finalize();
    await page.goto(`${base}/admin/orders/${short.id}`);
    await page.getByTestId("resolution-reason").fill("close enough");
    expect(await page.getByTestId("cancel-order").count()).toBe(0);
    await page.getByTestId("accept-order").click();
    await expect.poll(async () => (await t.orderRow(short.id)).status).toBe("confirmed");
    await expect.poll(() => page.getByTestId("accept-order").count()).toBe(0);

    // Attach the stray to the order it was meant for.
    const meant = await t.order("4");
    await page.goto(`${base}/admin/orders/${meant.id}`);
    await page.getByTestId("resolution-reason").fill("paid to an old address");
    await page.getByTestId("attach-tx-hash").fill(txid);
    await page.getByTestId("attach-transfer").click();
    await expect.poll(async () => (await t.orderRow(meant.id)).status).toBe("confirmed");
    await expect.poll(() => page.getByTestId("resolutions").innerText()).toContain("attach");
    expect(problems).toEqual([]);
  }, 120_000);

  it("queues a stray's failed address sweep again from the Strays page", async () => {
    await fillAddressPool(t.ctx);
    const [spare] = await t.ctx.db
      .select()
      .from(addresses)
      .where(eq(addresses.status, "free"))
      .orderBy(desc(addresses.derivationIndex))
      .limit(1);
    if (!spare) throw new Error("no free address");
    await t.pay(spare.address, 2_000_000n);
    t.mine(1);
    await t.finalize();
    const settlementOf = async () => {
      const [row] = await t.ctx.db
        .select()
        .from(settlements)
        .where(and(eq(settlements.address, spare.address), isNull(settlements.orderId)));
      return row;
    };
    // The sweeper gives up: the hot wallet cannot pay the sweep's fee.
    for (let i = 0; i < SWEEP_MAX_ATTEMPTS + 4 && (await settlementOf())?.status !== "failed"; i++) {
      t.clock.advance(31 * 60_000);
      await runDueSweeps(t.ctx);
    }
    expect((await settlementOf())?.status).toBe("failed");
    const [stray] = await t.ctx.db
      .select()
      .from(strayTransfers)
      .where(eq(strayTransfers.toAddress, spare.address));
    const strayId = stray?.id as string;
    await page.goto(`${base}/admin/stray-transfers/${strayId}`);
    await expect.poll(() => page.getByTestId("address-sweep-status").innerText()).toBe("Failed");
    await page.getByTestId("stray-retry-sweep").click();
    await expect.poll(() => page.getByTestId("stray-sweep-message").innerText()).toContain("queued again");
    await expect.poll(() => page.getByTestId("address-sweep-status").innerText()).toBe("Waiting");
    expect((await settlementOf())?.status).toBe("waiting");
    expect(await page.getByTestId("stray-retry-sweep").count()).toBe(0);
    const audit = await t.ctx.db.select().from(auditLog).where(eq(auditLog.action, "stray.retry_sweep"));
    expect(audit).toEqual([expect.objectContaining({ targetType: "stray_transfer", targetId: strayId })]);
    expect(problems).toEqual([]);
  }, 120_000);
});
