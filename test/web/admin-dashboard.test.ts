/// <reference lib="dom" />
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App } from "../../src/http/app.js";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { launchChromium, openWatchedPage } from "../helpers/chromium.js";
import { listenLocal } from "../helpers/app.js";

// The operator dashboard in a real Chromium against the real app and admin API; payments go over
// the devnet through TronWeb and the real scanner and confirmer.
let t: ChainTest;
let app: App;
let base: string;
let browser: Browser;
let context: BrowserContext;
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
  ({ context, page } = await openWatchedPage(browser, problems, { consoleErrors: true }));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await t?.close();
});

const text = (testId: string) => page.getByTestId(testId).innerText();

async function merchantApi(apiKey: string, body: Record<string, unknown>) {
  const res = await fetch(`${base}/api/v1/payments`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({
      amount: "12.5",
      currency: "USDT",
      callback_url: "https://shop.example.com/cb",
      ...body,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("operator dashboard", () => {
  let apiKey = "";

  it("asks for the password, refuses a wrong one, and opens the overview with the right one", async () => {
    await page.goto(`${base}/admin`);
    await page.getByTestId("password").fill("not the password");
    await page.getByTestId("login").click();
    await expect.poll(() => text("login-error")).toBe("Wrong password.");
    await page.getByTestId("password").fill(TEST_ADMIN_PASSWORD);
    await page.getByTestId("login").click();
    await expect.poll(() => page.getByRole("heading", { name: "Overview" }).count()).toBe(1);
    expect(await text("stats-total-orders")).toBe("0");
    expect(await text("no-incidents")).toBe("No failed webhooks or sweeps.");
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === "admin_token")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
    });
  });

  it("creates a merchant and shows its key once; rotating refuses the old key; suspending stops new orders", async () => {
    await page.getByTestId("nav-merchants").click();
    await page.getByTestId("merchant-name").fill("Acme Coffee");
    await page.getByTestId("merchant-secret").fill("whsec-acme-1234");
    await page.getByTestId("create-merchant").click();
    apiKey = await page.getByTestId("new-api-key").innerText();
    expect(apiKey).toMatch(/^sg_test_[0-9A-Za-z]+$/);
    await expect.poll(() => page.getByTestId("merchant-Acme Coffee").count()).toBe(1);
    expect((await merchantApi(apiKey, { external_id: "dash-1" })).status).toBe(201);

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByTestId("merchant-Acme Coffee").getByTestId("rotate-key").click();
    await expect.poll(() => text("new-api-key")).not.toBe(apiKey);
    const rotated = await text("new-api-key");
    expect((await merchantApi(apiKey, { external_id: "dash-2" })).status).toBe(401);
    apiKey = rotated;
    expect((await merchantApi(apiKey, { external_id: "dash-2" })).status).toBe(201);

    await page.getByTestId("merchant-Acme Coffee").getByTestId("toggle-active").click();
    await expect.poll(() => page.getByTestId("merchant-Acme Coffee").innerText()).toContain("Suspended");
    expect((await merchantApi(apiKey, { external_id: "dash-3" })).status).toBe(403);
    await page.getByTestId("merchant-Acme Coffee").getByTestId("toggle-active").click();
    await expect.poll(() => page.getByTestId("merchant-Acme Coffee").innerText()).toContain("Active");
  });

  it("lists, filters and opens orders; a paid order shows its payment and events; refused actions say why", async () => {
    const created = await merchantApi(apiKey, { external_id: "dash-paid", amount: "7.25" });
    const order = created.body as { id: string; address: string };
    const txId = await t.pay(order.address, 7_250_000n);
    t.mine(1);
    await t.finalize();
    expect((await t.orderRow(order.id)).status).toBe("confirmed");

    await page.getByTestId("nav-orders").click();
    await expect.poll(() => page.getByTestId("order-row").count()).toBe(3);
    await page.getByTestId("filter-status").selectOption("confirmed");
    await page.getByTestId("apply-filters").click();
    await expect.poll(() => page.getByTestId("order-row").count()).toBe(1);
    expect(page.url()).toContain("status=confirmed");
    expect(await page.getByTestId("order-row").innerText()).toContain("dash-paid");

    await page.getByRole("link", { name: "dash-paid" }).click();
    await expect.poll(() => page.getByTestId("events").innerText()).toContain("Payment confirmed");
    expect(await text("transaction")).toContain(txId);
    await page.getByTestId("retry-webhook").click();
    await expect.poll(() => text("action-message")).toBe("Retry webhook: queued.");
    // Its sweep has not failed: the page offers no retry, and says why.
    expect(await page.getByTestId("retry-sweep").isDisabled()).toBe(true);
    expect(await text("retry-sweep-why")).toMatch(/^(Sweeping is turned off|The sweep is queued)/);
    // A pending order cannot be paid twice from the faucet: only Simulate on a pending order.
    expect(await page.getByTestId("simulate-payment").isDisabled()).toBe(true);

    await page.goBack();
    await expect.poll(() => page.getByTestId("order-row").count()).toBe(1);
  });

  it("pays an order from the devnet faucet with Simulate payment (devnet deployments only)", async () => {
    const created = await merchantApi(apiKey, { external_id: "dash-sim", amount: "3.5" });
    const order = created.body as { id: string; address: string };
    await page.getByTestId("nav-orders").click();
    await page.getByRole("link", { name: "dash-sim" }).click();
    await expect.poll(() => page.getByTestId("events").innerText()).toContain("Order created");
    await page.getByTestId("simulate-payment").click();
    await expect
      .poll(() => text("action-message"))
      .toMatch(/^Simulate payment: sent 3\.500000 USDT from the devnet faucet, tx [0-9a-f]{64}\.$/);
    const txHash = /tx ([0-9a-f]{64})/.exec(await text("action-message"))?.[1];
    await t.finalize();
    expect(await t.orderRow(order.id)).toMatchObject({ status: "confirmed", txHash });
    await page.reload();
    await expect.poll(() => page.getByTestId("events").innerText()).toContain("Payment confirmed");
    expect(await text("transaction")).toContain(txHash);
  });

  it("shows the wallet, flags the empty hot wallet, and logs out", async () => {
    await page.getByTestId("nav-wallet").click();
    await expect.poll(() => text("hot-balance")).toBe("0.000000 TRX");
    // The hot wallet's USDT beside its TRX, read from the devnet.
    expect(await text("hot-usdt")).toBe("0.000000 USDT for payouts");
    expect(await text("low-balance")).toContain("under the 100 TRX alert");
    expect(await text("system")).toContain("Sweeping");
    expect(await page.content()).not.toContain(t.config.hotWalletPrivateKey as string);

    await page.getByTestId("logout").click();
    await expect.poll(() => page.getByTestId("password").count()).toBe(1);
    const res = await page.evaluate(() => fetch("/api/v1/admin/stats").then((r) => r.status));
    expect(res).toBe(401);
  });

  it("ran without a script error or a Content-Security-Policy violation", () => {
    // The 401s of the session check and of the refused actions are expected answers.
    expect(problems.filter((p) => !/status of (401|409)/.test(p)).join("\n")).toBe("");
  });
});
