/// <reference lib="dom" />
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DevnetListener } from "@stablegate/devnet";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { startScannerLeader } from "../../src/chain/scanner-leader.js";
import { orders } from "../../src/db/schema.js";
import { buildApp, type App } from "../../src/http/app.js";
import { newId } from "../../src/ids.js";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { FAST_RETRY, startChainTest, type ChainTest } from "../chain/helpers.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { launchChromium, openWatchedPage } from "../helpers/chromium.js";
import { listenLocal } from "../helpers/app.js";

// The overview's operations panels and revenue chart in a real Chromium, against the real app, the
// real alert evaluator and scanner, and a devnet serving the chain on two further listeners: the
// service's TRON_NODE_URL is listener 1 (preferred), then listener 2 (fallback); listener 0 is the
// test's own door (paying, mining).
let t: ChainTest;
let app: App;
let base: string;
let browser: Browser;
let page: Page;
let primary: DevnetListener;
const problems: string[] = [];

const LAG_ALERT = 5;
/** The overview reloads every 5 s and the scanner publishes every 5 s: allow a few rounds. */
const UI = { timeout: 30_000, interval: 250 };

beforeAll(async () => {
  await ensureWebBuild();
  t = await startChainTest({
    devnet: { extraPorts: [0, 0] },
    nodeUrls: (d) => `${d.listeners[1]?.url},${d.listeners[2]?.url}`,
    pool: { failureThreshold: 3, pauseMs: 200, maxPauseMs: 1000, probeIntervalMs: 300 },
    env: { ALERT_SCANNER_LAG_BLOCKS: String(LAG_ALERT), ALERT_POOL_MIN_FREE: "0" },
  });
  primary = t.devnet.listeners[1] as DevnetListener;
  t.clock.set(new Date());
  await t.scanner.sync();
  app = await buildApp(t.ctx);
  base = await listenLocal(app);
  browser = await launchChromium();
  ({ page } = await openWatchedPage(browser, problems, { consoleErrors: true }));
  await page.goto(`${base}/admin`);
  await page.getByTestId("password").fill(TEST_ADMIN_PASSWORD);
  await page.getByTestId("login").click();
  await page.getByRole("heading", { name: "Overview" }).waitFor({ timeout: 30_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await t?.close();
});

const text = (testId: string) => page.getByTestId(testId).innerText();
const nodeRow = (node: string) => page.locator(`[data-testid="node-row"][data-node="${node}"]`);
const nodeAttrs = async (node: string) => ({
  state: await nodeRow(node).getAttribute("data-state"),
  active: await nodeRow(node).getAttribute("data-active"),
});
const evaluate = () => evaluateAlerts(t.ctx, { headFreshMs: 0 });

// Each test waits on several UI polls of up to 30 s (UI): its own deadline must outlast them, so a
// slow page fails at the poll that printed what it saw instead of at the test's 30 s default.
describe("overview: operations", { timeout: 180_000 }, () => {
  it("shows a firing scanner-lag alert and the lag, and clears both when the scanner catches up", async () => {
    expect(await text("no-alerts")).toBe("No alert is firing.");
    await expect.poll(() => page.getByTestId("scanner-lag").getAttribute("data-lag"), UI).toBe("0");

    const scanned = (await t.cursor()) as number;
    t.mine(LAG_ALERT + 5);
    expect((await evaluate()).fired).toEqual(["scanner_lag"]);
    await expect.poll(() => page.getByTestId("alert-scanner_lag").count(), UI).toBe(1);
    expect(await text("alert-scanner_lag")).toMatch(
      new RegExp(`^critical scanner_lag since .* UTC\\s+The chain scanner is ${LAG_ALERT + 5} blocks behind`),
    );
    expect(await page.getByTestId("no-alerts").count()).toBe(0);
    await expect
      .poll(() => page.getByTestId("scanner-lag").getAttribute("data-lag"), UI)
      .toBe(String(LAG_ALERT + 5));
    expect(await text("scanner-lag")).toContain(
      `${LAG_ALERT + 5} blocks behind the head (head ${scanned + LAG_ALERT + 5}, scanned ${scanned}; alert above ${LAG_ALERT})`,
    );

    await t.scanner.sync();
    expect((await evaluate()).resolved).toEqual(["scanner_lag"]);
    await expect.poll(() => page.getByTestId("no-alerts").count(), UI).toBe(1);
    expect(await page.getByTestId("alert-scanner_lag").count()).toBe(0);
    await expect.poll(() => page.getByTestId("scanner-lag").getAttribute("data-lag"), UI).toBe("0");
  });

  it("draws the 7-day revenue as one SVG bar per day, each as tall as its amount", async () => {
    const day = 24 * 3600 * 1000;
    const now = t.clock.now().getTime();
    // Completed orders on three of the seven days (the insert trigger keeps the daily rollups).
    const amounts: [number, bigint, string][] = [
      [0, 12_500_000n, "12.5"],
      [1, 50_000_000n, "50"],
      [4, 7_250_001n, "7.250001"],
    ];
    for (const [daysAgo, micro] of amounts) {
      const at = new Date(now - daysAgo * day);
      const id = newId();
      await t.ctx.db.insert(orders).values({
        id,
        merchantId: t.merchantId,
        externalId: `chart-${daysAgo}`,
        amountExpected: micro,
        amountReceived: micro,
        network: "devnet",
        status: "completed",
        address: `T${id.replace(/-/g, "").slice(0, 33)}`,
        callbackUrl: "https://merchant.example.com/cb",
        expiresAt: new Date(at.getTime() + 1_800_000),
        createdAt: at,
        updatedAt: at,
      });
    }
    const dateOf = (daysAgo: number) => new Date(now - daysAgo * day).toISOString().slice(0, 10);
    const expected = new Map(amounts.map(([d, micro, label]) => [dateOf(d), { micro, label }]));

    await page.reload();
    await expect.poll(() => page.getByTestId("daily-bar").count(), UI).toBe(7);
    await expect
      .poll(
        () => page.locator(`[data-testid="daily-bar"][data-date="${dateOf(1)}"]`).getAttribute("data-amount"),
        UI,
      )
      .toBe("50.000000");
    const chart = page.getByTestId("daily-chart");
    // Largest day 50 USDT: steps of 20 USDT, so the axis tops at 80.
    expect(await chart.getAttribute("data-axis-max")).toBe("80");
    const plotHeight = Number(await chart.getAttribute("data-plot-height"));
    const bars = await page.getByTestId("daily-bar").evaluateAll((groups) =>
      groups.map((g) => ({
        date: g.getAttribute("data-date") ?? "",
        height: Number(g.querySelector("rect")?.getAttribute("height")),
        label: g.querySelector("text")?.textContent ?? "",
      })),
    );
    expect(bars.map((b) => b.date)).toEqual([6, 5, 4, 3, 2, 1, 0].map(dateOf));
    for (const bar of bars) {
      const { micro, label } = expected.get(bar.date) ?? { micro: 0n, label: "0" };
      // Exactly amount / axis max of the plot, to the 1/100 px the chart rounds to.
      expect(Math.abs(bar.height - (Number(micro) / 80_000_000) * plotHeight)).toBeLessThanOrEqual(0.01);
      expect(bar.label).toBe(label);
    }
    const h = (daysAgo: number) => bars.find((b) => b.date === dateOf(daysAgo))?.height ?? NaN;
    expect(h(1) / h(0)).toBeCloseTo(50 / 12.5, 3);
    expect(h(0) / h(4)).toBeCloseTo(12.5 / 7.250001, 3);
    expect(await chart.innerHTML()).toContain("<title>" + dateOf(4) + ": 7.250001 USDT</title>");
  });

  it("shows the nodes as the scanner sees them: the fallback in use while the preferred node is down", async () => {
    const leader = startScannerLeader(t.ctx, { maxIdleMs: 50, retry: FAST_RETRY, lockRetryMs: 100 });
    const miner = setInterval(() => t.mine(1), 300);
    try {
      await expect.poll(() => text("chain-source"), UI).toBe("devnet; as seen by the scanning worker");
      await expect.poll(() => nodeAttrs("node-1"), UI).toEqual({ state: "healthy", active: "true" });
      expect(await nodeRow("node-1").innerText()).toContain(primary.url);
      expect(await nodeRow("node-1").innerText()).toContain("preferred");
      expect(await nodeRow("node-2").innerText()).toContain("fallback");

      await primary.stop();
      await expect.poll(() => nodeAttrs("node-1"), UI).toEqual({ state: "failing", active: "false" });
      expect(await nodeAttrs("node-2")).toEqual({ state: "healthy", active: "true" });
      expect(await nodeRow("node-1").innerText()).toContain("set aside (errors)");
      expect(await nodeRow("node-2").innerText()).toContain("in use");
      // The scanner keeps up on the fallback.
      const lag = Number(await page.getByTestId("scanner-lag").getAttribute("data-lag"));
      expect(lag).toBeLessThanOrEqual(LAG_ALERT);

      await primary.start();
      await expect.poll(() => nodeAttrs("node-1"), UI).toEqual({ state: "healthy", active: "true" });
      expect(await nodeAttrs("node-2")).toEqual({ state: "healthy", active: "false" });
    } finally {
      clearInterval(miner);
      await leader.stop();
    }
  });

  it("ran without a script error or a Content-Security-Policy violation", () => {
    expect(problems.filter((p) => !/status of 401/.test(p)).join("\n")).toBe("");
  });
});
