/// <reference lib="dom" />
/**
 * Every page of the console and of the payer, filled by a real demo run (test/web/console-demo.ts),
 * in a real Chromium at a 1440 px desktop and a 390 px phone: nothing wider than the viewport, no raw
 * JSON, internal codes (snake_case) or references to the project's documents in the visible text, and
 * no serious or critical accessibility violation found by axe-core. A screenshot of each page is
 * kept in test-artifacts/console-pages/ (not committed), with summary.json of the figures.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import axeCore from "axe-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { adminCookie } from "../helpers/admin.js";
import { launchChromium } from "../helpers/chromium.js";
import { startConsoleDemo, type ConsoleDemo } from "./console-demo.js";

const ARTIFACTS = join(process.cwd(), "test-artifacts", "console-pages");
/** axe-core's own script, injected into each page. */
const AXE = axeCore.source;
const WIDTHS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

let demo: ConsoleDemo;
let browser: Browser;
const contexts = new Map<string, BrowserContext>();
const problems: string[] = [];
const summary: Record<string, Record<string, PageReport>> = {};

interface PageReport {
  scrollWidth: number;
  innerWidth: number;
  leaks: string[];
  axe: { id: string; impact: string; nodes: number; help: string }[];
}

beforeAll(async () => {
  await ensureWebBuild();
  demo = await startConsoleDemo();
  browser = await launchChromium();
  const cookie = (await adminCookie(demo.app)).split("=");
  for (const size of WIDTHS) {
    // axe-core is injected as a script: the pages' Content-Security-Policy would refuse it.
    const context = await browser.newContext({
      viewport: { width: size.width, height: size.height },
      deviceScaleFactor: 1,
      bypassCSP: true,
    });
    await context.addCookies([{ name: cookie[0] ?? "", value: cookie.slice(1).join("="), url: demo.base }]);
    contexts.set(size.name, context);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
}, 600_000);

afterAll(async () => {
  writeFileSync(join(ARTIFACTS, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  const rows = Object.entries(summary).map(([page, sizes]) => ({
    page,
    ...Object.fromEntries(
      Object.entries(sizes).map(([size, r]) => [
        size,
        `w=${r.scrollWidth} axe=${r.axe.map((v) => `${v.id}(${v.impact})`).join(",") || "0"} leaks=${r.leaks.length}`,
      ]),
    ),
  }));
  console.table(rows);
  for (const context of contexts.values()) await context.close();
  await browser?.close();
  await demo?.close();
});

/** Waits until the page has loaded its data: a heading, no "Loading…", and text that stopped changing. */
async function settle(page: Page): Promise<void> {
  let last = "";
  await expect
    .poll(
      async () => {
        const text = await page.evaluate(() => document.body.innerText);
        const ready = !/Loading…|Loading\.\.\./.test(text) && /\S/.test(text) && text === last;
        last = text;
        return ready ? "ready" : `not ready: ${text.slice(0, 200)}`;
      },
      { timeout: 30_000, interval: 400 },
    )
    .toBe("ready");
}

/** The visible text, less what a page marks as verbatim (an API key's public prefix, a URL typed by a merchant). */
const visibleText = (page: Page) =>
  page.evaluate(() => {
    let text = document.body.innerText;
    for (const element of Array.from(document.querySelectorAll<HTMLElement>("[data-verbatim]"))) {
      text = text.split(element.innerText).join(" ");
    }
    return text;
  });

function leaksIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/[{[]\s*"[A-Za-z_]+"\s*:/g)) found.push(`raw JSON: ${match[0]}`);
  for (const match of text.matchAll(/\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b/g))
    found.push(`code: ${match[0]}`);
  for (const match of text.matchAll(/DESIGN\.md|SPEC\.md|ADMIN_PASSWORD/g))
    found.push(`reference: ${match[0]}`);
  return [...new Set(found)];
}

type Size = (typeof WIDTHS)[number];

/** Measures one loaded page: its width, its visible text's leaks, axe-core's violations; keeps a screenshot. */
async function measure(page: Page, name: string, size: Size): Promise<PageReport> {
  const [scrollWidth, innerWidth] = await page.evaluate(() => [
    document.documentElement.scrollWidth,
    window.innerWidth,
  ]);
  const leaks = leaksIn(await visibleText(page));
  await page.addScriptTag({ content: AXE });
  const axe = await page.evaluate(async () => {
    type Violation = { id: string; impact: string; nodes: unknown[]; help: string };
    const { axe } = window as unknown as {
      axe: { run: (context: Document, options: object) => Promise<{ violations: Violation[] }> };
    };
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.length,
      help: v.help,
    }));
  });
  mkdirSync(join(ARTIFACTS, size.name), { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, size.name, `${name}.png`), fullPage: true });
  const report = { scrollWidth: scrollWidth ?? 0, innerWidth: innerWidth ?? 0, leaks, axe };
  (summary[name] ??= {})[size.name] = report;
  return report;
}

function expectClean(name: string, size: Size, report: PageReport): void {
  expect(report.scrollWidth, `${name} at ${size.width} px is wider than the viewport`).toBeLessThanOrEqual(
    report.innerWidth,
  );
  expect(report.leaks, `${name} at ${size.width} px`).toEqual([]);
  expect(
    report.axe.filter((v) => v.impact === "serious" || v.impact === "critical"),
    `${name} at ${size.width} px`,
  ).toEqual([]);
}

async function check(name: string, path: string): Promise<void> {
  const reports: [Size, PageReport][] = [];
  for (const size of WIDTHS) {
    const page = await (contexts.get(size.name) as BrowserContext).newPage();
    page.on("pageerror", (error) => problems.push(`${name}: pageerror: ${error.message}`));
    await page.goto(demo.base + path);
    await settle(page);
    reports.push([size, await measure(page, name, size)]);
    await page.close();
  }
  for (const [size, report] of reports) expectClean(name, size, report);
}

describe("every console and payer page at 1440 and 390 px", () => {
  const pages: [string, () => string][] = [
    ["overview", () => "/admin"],
    ["orders", () => "/admin/orders"],
    ["order-exact", () => `/admin/orders/${demo.orders.exact}`],
    ["order-underpaid", () => `/admin/orders/${demo.orders.under}`],
    ["order-overpaid", () => `/admin/orders/${demo.orders.over}`],
    ["order-failing-webhook", () => `/admin/orders/${demo.orders.failing}`],
    ["order-pending", () => `/admin/orders/${demo.orders.pending}`],
    ["merchants", () => "/admin/merchants"],
    ["merchant", () => `/admin/merchants/${demo.merchantId}`],
    ["payouts", () => "/admin/payouts"],
    ["payout-sent", () => `/admin/payouts/${demo.payouts.sent}`],
    ["payout-waiting", () => `/admin/payouts/${demo.payouts.waiting}`],
    ["refund", () => `/admin/payouts/${demo.refund.id}`],
    ["deposit-addresses", () => "/admin/deposit-addresses"],
    ["deposit-address", () => `/admin/deposit-addresses/${demo.depositAddressId}`],
    ["wallet", () => "/admin/wallet"],
    ["operators", () => "/admin/operators"],
    ["audit", () => "/admin/audit"],
    ["security", () => "/admin/security"],
    ["strays", () => "/admin/stray-transfers"],
    ["stray", () => `/admin/stray-transfers/${demo.strayId}`],
    ["checkout-pending", () => `/checkout/${demo.orders.pending}`],
    ["checkout-underpaid", () => `/checkout/${demo.orders.underOpen}`],
    ["checkout-underpaid-delivered", () => `/checkout/${demo.orders.under}`],
    ["checkout-overpaid", () => `/checkout/${demo.orders.over}`],
    ["checkout-paid", () => `/checkout/${demo.orders.exact}`],
    ["refund-claim", () => demo.refund.claimPath],
  ];
  for (const [name, path] of pages) {
    it(name, () => check(name, path()), 120_000);
  }

  it("login", async () => {
    for (const size of WIDTHS) {
      const context = await browser.newContext({
        viewport: { width: size.width, height: size.height },
        deviceScaleFactor: 1,
        bypassCSP: true,
      });
      const page = await context.newPage();
      await page.goto(`${demo.base}/admin`);
      await expect.poll(() => page.getByTestId("password").count()).toBe(1);
      const report = await measure(page, "login", size);
      await context.close();
      expectClean("login", size, report);
    }
  });

  it("ran without a script error", () => {
    expect(problems).toEqual([]);
  });
});
