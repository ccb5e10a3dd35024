/// <reference lib="dom" />
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCS_PATH } from "../../src/http/openapi.js";
import { createTestApp, listenLocal, type TestApp } from "../helpers/app.js";
import { launchChromium } from "../helpers/chromium.js";

// The API reference page (Swagger UI at /api/v1/docs) in a real Chromium, served by the real app
// listening on a socket, under the app's own Content-Security-Policy. The app listens on 127.0.0.2:
// Swagger UI treats "localhost" and "127.0.0.1" as local and skips what it does for a deployment
// with a real host name (such as loading the online validator's badge, which the CSP refuses).
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let csp: string | null | undefined;
const problems: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  base = await listenLocal(t.app, "127.0.0.2");
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") {
      problems.push(`console ${message.type()}: ${message.text()}`);
    }
  });
  page.on("requestfailed", (request) =>
    problems.push(`failed: ${request.url()} ${request.failure()?.errorText ?? ""}`),
  );
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  const response = await page.goto(base + DOCS_PATH);
  expect(response?.status()).toBe(200);
  csp = await response?.headerValue("content-security-policy");
  // Rendered: the operations of the first tag are in the page.
  await page.locator("#operations-merchant-postPayments").waitFor({ timeout: 30_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const summaryPath = (id: string) => page.locator(`#${id} .opblock-summary-path`).innerText();
const summaryMethod = (id: string) => page.locator(`#${id} .opblock-summary-method`).innerText();

describe("API reference page", () => {
  it("is served under the app's Content-Security-Policy (no inline scripts allowed)", () => {
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toContain("default-src 'self'");
  });

  it("lists the merchant operations, the create-payment operation first among them", async () => {
    expect(await page.locator(".info .title").innerText()).toContain("Stablegate API");
    expect(await summaryMethod("operations-merchant-postPayments")).toBe("POST");
    expect(await summaryPath("operations-merchant-postPayments")).toBe("/api/v1/payments");
    expect(await summaryPath("operations-merchant-getPaymentsId")).toBe("/api/v1/payments/{id}");
    expect(await summaryPath("operations-sandbox-postPaymentsIdSimulate")).toBe(
      "/api/v1/payments/{id}/simulate",
    );
  });

  it("lists the admin routes", async () => {
    const paths = await page.locator('[id^="operations-admin-"] .opblock-summary-path').allInnerTexts();
    expect(paths).toEqual(
      expect.arrayContaining([
        "/api/v1/admin/auth/login",
        "/api/v1/admin/merchants",
        "/api/v1/admin/orders",
        "/api/v1/admin/orders/{id}/retry-webhook",
        "/api/v1/admin/wallet",
        "/api/v1/admin/stats",
      ]),
    );
  });

  it("expands create-payment with its request body, its responses and their error codes", async () => {
    await page.locator("#operations-merchant-postPayments .opblock-summary-control").click();
    const operation = page.locator("#operations-merchant-postPayments");
    await operation.locator(".responses-table").first().waitFor();
    const statuses = await operation.locator(".responses-table .response-col_status").allInnerTexts();
    expect(statuses.map((s) => s.trim())).toEqual(expect.arrayContaining(["201", "401", "409", "429"]));
    expect(await operation.innerText()).toContain("EXTERNAL_ID_CONFLICT");
    expect(await operation.locator(".opblock-section-request-body").count()).toBe(1);
  });

  it("offers both security schemes: the X-API-Key header and the admin_token cookie", async () => {
    await page.locator(".auth-wrapper .authorize").click();
    const dialog = page.locator(".dialog-ux .modal-ux");
    await dialog.waitFor();
    const text = await dialog.innerText();
    expect(text).toMatch(/apiKey\s+\(apiKey\)/);
    expect(text).toContain("X-API-Key");
    expect(text).toMatch(/adminCookie\s+\(apiKey\)/);
    expect(text).toContain("admin_token");
    await dialog.locator(".close-modal").click();
  });

  it("shows the webhooks section with every event of the document, the three payment events first", async () => {
    const document = JSON.parse(
      readFileSync(resolve(import.meta.dirname, "../../docs/openapi.json"), "utf8"),
    ) as { webhooks: Record<string, unknown> };
    const section = page.locator(".webhooks");
    expect(await section.locator("h2").innerText()).toBe("Webhooks");
    const shown = await section.locator(".opblock-summary-path").allInnerTexts();
    expect(shown.slice(0, 3)).toEqual(["payment.confirmed", "payment.underpaid", "payment.overpaid"]);
    expect([...shown].sort()).toEqual(Object.keys(document.webhooks).sort());
  });

  it("loaded every asset and logged no error", () => {
    expect(problems).toEqual([]);
  });
});
