/// <reference lib="dom" />
/**
 * Passkeys in a real Chromium (DESIGN.md 12) with its virtual authenticator (the DevTools protocol's
 * WebAuthn domain, through playwright-core's CDP session), against the real app over HTTP and the
 * devnet: the owner registers a passkey on the Security page, signs in with it, approves a payout
 * with it from the approval dialog, removes it (a step-up done with the passkey itself), and the
 * removed passkey is then refused at sign-in. WebAuthn needs a secure context and a domain as RP ID,
 * so the app is served as http://localhost:PORT and PUBLIC_BASE_URL says so.
 */
import { createServer, type AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { buildApp, type App } from "../../src/http/app.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import { adminCookie } from "../helpers/admin.js";
import { launchChromium } from "../helpers/chromium.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { enrolTotp, totpAt } from "../helpers/operators.js";
import { newTronAccount, payoutRow } from "../helpers/payout-chain.js";

const USDT = 1_000_000n;
let t: ChainTest;
let app: App;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let apiKey: string;
let secret: string;
let payoutId: string;
const problems: string[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function merchant(method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "x-api-key": apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function ownerCode(): string {
  t.clock.advance(31_000);
  return totpAt(secret, t.clock.now());
}

async function signedIn(): Promise<void> {
  await expect.poll(() => page.getByTestId("who").count(), { timeout: 20_000 }).toBe(1);
}

async function logout(): Promise<void> {
  await page.getByTestId("logout").click();
  await expect.poll(() => page.getByTestId("login").count(), { timeout: 20_000 }).toBe(1);
}

beforeAll(async () => {
  await ensureWebBuild();
  const port = await freePort();
  base = `http://localhost:${port}`;
  const hot = await newTronAccount();
  t = await startChainTest({
    env: { HOT_WALLET_PRIVATE_KEY: hot.privateKey, SWEEP_ENABLED: "false", PUBLIC_BASE_URL: base },
  });
  t.clock.set(new Date());
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "1000", usdt: "100", solidify: true });
  await t.scanner.sync();
  app = await buildApp(t.ctx);
  await app.listen({ port, host: "127.0.0.1" });
  apiKey = (await createMerchant(t.ctx, { name: "Passkey Shop", webhookSecret: "whsec-passkey-test" }))
    .apiKey;

  // The owner has an authenticator app: adding a passkey then takes the password and a code.
  secret = (await enrolTotp(app, await adminCookie(app), () => t.clock.now(), TEST_ADMIN_PASSWORD)).secret;

  const order = await merchant("POST", "/api/v1/payments", {
    external_id: "passkey-order",
    amount: "10",
    currency: "USDT",
    callback_url: "https://shop.example.com/cb",
  });
  expect(order.status).toBe(201);
  await t.pay(order.body.address as string, 10n * USDT);
  t.mine(1);
  await t.finalize();
  const payout = await merchant("POST", "/api/v1/payouts", {
    external_id: "passkey-payout",
    amount: "3",
    address: (await newTronAccount()).address,
  });
  expect(payout.status, JSON.stringify(payout.body)).toBe(201);
  payoutId = payout.body.id as string;

  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}, 240_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
  await t?.close();
});

describe("passkeys in the browser", () => {
  it("registers a passkey on the Security page with the password and a current code", async () => {
    await page.goto(`${base}/admin`);
    await page.getByTestId("password").fill(TEST_ADMIN_PASSWORD);
    await page.getByTestId("totp").fill(ownerCode());
    await page.getByTestId("login").click();
    await signedIn();
    await page.goto(`${base}/admin/security`);
    await expect.poll(() => page.getByTestId("passkeys-none").count(), { timeout: 20_000 }).toBe(1);
    await page.getByTestId("passkey-name").fill("Virtual key");
    await page.getByTestId("passkey-password").fill(TEST_ADMIN_PASSWORD);
    await page.getByTestId("passkey-totp").fill(ownerCode());
    await page.getByTestId("passkey-add").click();
    await expect
      .poll(() => page.getByTestId("passkey").count(), {
        timeout: 20_000,
        message: "the passkey list after adding",
      })
      .toBe(1);
    expect(await page.getByTestId("passkey").getAttribute("data-name")).toBe("Virtual key");
    expect(problems).toEqual([]);
  });

  it("signs in with the passkey instead of a code", async () => {
    await logout();
    await page.getByTestId("password").fill(TEST_ADMIN_PASSWORD);
    await page.getByTestId("login-passkey").click();
    await signedIn();
  });

  it("approves a payout with the passkey from the approval dialog", async () => {
    await page.getByTestId("nav-payouts").click();
    const row = page.getByTestId(`payout-${payoutId}`);
    await expect.poll(() => row.count(), { timeout: 20_000 }).toBe(1);
    await row.getByTestId("approve-payout").click();
    await expect.poll(() => page.getByRole("dialog").count()).toBe(1);
    await page.getByTestId("decision-passkey").click();
    await expect.poll(() => page.getByRole("dialog").count(), { timeout: 20_000 }).toBe(0);
    expect(await payoutRow(t, payoutId)).toMatchObject({ status: "approved", decidedByLabel: "owner" });
  });

  it("removes the passkey with a passkey step-up; the removed passkey is then refused at sign-in", async () => {
    await page.goto(`${base}/admin/security`);
    await expect.poll(() => page.getByTestId("passkey").count(), { timeout: 20_000 }).toBe(1);
    await page.getByTestId("passkey-remove").click();
    await expect.poll(() => page.getByTestId("passkeys-none").count(), { timeout: 20_000 }).toBe(1);
    await logout();
    await page.getByTestId("password").fill(TEST_ADMIN_PASSWORD);
    await page.getByTestId("login-passkey").click();
    await expect
      .poll(() => page.getByTestId("login-error").innerText(), { timeout: 20_000 })
      .toContain("passkey was not accepted");
    expect(await page.getByTestId("who").count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
