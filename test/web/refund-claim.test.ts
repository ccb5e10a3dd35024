/// <reference lib="dom" />
/**
 * The refund claim page (DESIGN.md 14) in a real Chromium against the real app over HTTP and the
 * devnet: a merchant refunds an overpayment without an address; the payer opens claim_url, is told
 * an invalid address and one of our own addresses are refused (nothing changes), gives a valid one,
 * and follows the refund: waiting for approval, approved by a second operator with a TOTP code,
 * sent by the real sender from the hot wallet, completed with its tx hash; the recipient's on-chain
 * USDT rose by exactly the amount. Unknown tokens and an expired link have their own states.
 */
import { eq } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { payoutEvents } from "../../src/db/schema.js";
import { buildApp, type App } from "../../src/http/app.js";
import { checkLedger } from "../../src/ledger/check-ledger.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import { adminCookie } from "../helpers/admin.js";
import { launchChromium, openWatchedPage } from "../helpers/chromium.js";
import { createOperatorViaApi, enrolTotp, operatorCookie, totpAt } from "../helpers/operators.js";
import { newTronAccount, payoutRow, sendPayoutUntil } from "../helpers/payout-chain.js";
import { usdtBalance } from "../helpers/usdt.js";
import { listenLocal } from "../helpers/app.js";

const USDT = 1_000_000n;
let t: ChainTest;
let app: App;
let base: string;
let browser: Browser;
let page: Page;
let apiKey: string;
let hot: { privateKey: string; address: string };
const problems: string[] = [];

async function http(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const merchant = (method: string, path: string, body?: unknown) =>
  http(method, path, { "x-api-key": apiKey }, body);

beforeAll(async () => {
  await ensureWebBuild();
  hot = await newTronAccount();
  const cold = await newTronAccount();
  t = await startChainTest({
    env: {
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: cold.address,
      SWEEP_ENABLED: "false",
    },
  });
  t.clock.set(new Date());
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "1000", usdt: "100", solidify: true });
  await t.scanner.sync();
  app = await buildApp(t.ctx);
  base = await listenLocal(app);
  apiKey = (await createMerchant(t.ctx, { name: "Claim Coffee", webhookSecret: "whsec-claim-test" })).apiKey;
  browser = await launchChromium();
  ({ page } = await openWatchedPage(browser, problems));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await t?.close();
});

describe("the refund claim page", () => {
  it("takes the payer's address, refuses bad ones, and follows the refund to its tx hash on chain", async () => {
    // An order overpaid by 5 USDT: the merchant refunds the 5 without knowing the payer's address.
    const created = await merchant("POST", "/api/v1/payments", {
      external_id: "claim-order-1",
      amount: "20",
      currency: "USDT",
      callback_url: "https://shop.example.com/cb",
    });
    expect(created.status).toBe(201);
    const order = created.body as { id: string; address: string };
    await t.pay(order.address, 25n * USDT);
    t.mine(1);
    await t.finalize();
    const refund = await merchant("POST", `/api/v1/payments/${order.id}/refunds`, {
      amount: "5",
      reason: "overpaid",
    });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    const refundId = refund.body.id as string;
    const claimUrl = refund.body.claim_url as string;
    expect(claimUrl).toMatch(/\/refund\/[A-Za-z0-9_-]{20,}$/);

    // PUBLIC_BASE_URL of the test config is not this listener: open the same path here.
    await page.goto(`${base}${new URL(claimUrl).pathname}`);
    await expect
      .poll(() => page.getByTestId("headline").innerText(), { timeout: 20_000 })
      .toBe("Enter the address for your refund");
    expect(await page.getByTestId("merchant").innerText()).toBe("Claim Coffee");
    expect(await page.getByTestId("amount").innerText()).toContain("5");
    expect(await page.getByTestId("claim-expiry").innerText()).toMatch(
      /^This link expires on \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC \(in 7 days\)\.$/,
    );
    const input = page.getByLabel("Your TRON address (USDT, TRC20)");
    expect(await input.count()).toBe(1);

    const eventsBefore = await t.ctx.db
      .select()
      .from(payoutEvents)
      .where(eq(payoutEvents.payoutId, refundId));
    // A typo: the format hint shows before sending, and the server refuses the checksum.
    const payer = await newTronAccount();
    const typo = `${payer.address.slice(0, 33)}${payer.address.endsWith("A") ? "B" : "A"}`;
    await input.fill("0x1234");
    await input.blur();
    await expect.poll(() => page.getByTestId("claim-hint").innerText()).toContain("starts with T");
    await input.fill(typo);
    await page.getByTestId("claim-submit").click();
    await expect
      .poll(() => page.getByTestId("claim-error").innerText(), { timeout: 15_000 })
      .toContain("not a valid TRON address");
    // One of our own addresses (the hot wallet): refused with its own message.
    await input.fill(hot.address);
    await page.getByTestId("claim-submit").click();
    await expect
      .poll(() => page.getByTestId("claim-error").innerText(), { timeout: 15_000 })
      .toContain("belongs to the payment service");
    expect(await page.getByRole("alert").count()).toBe(1);
    const untouched = await payoutRow(t, refundId);
    expect(untouched).toMatchObject({ status: "awaiting_address", address: null });
    expect(
      await t.ctx.db.select().from(payoutEvents).where(eq(payoutEvents.payoutId, refundId)),
    ).toHaveLength(eventsBefore.length);

    // The right address: the refund waits for approval, and the form is gone.
    await input.fill(payer.address);
    await page.getByTestId("claim-submit").click();
    await expect
      .poll(() => page.getByTestId("headline").innerText(), { timeout: 15_000 })
      .toBe("Waiting for approval");
    expect(await page.getByTestId("claim-address").count()).toBe(0);
    expect(await page.getByTestId("claim-destination").innerText()).toBe(payer.address);
    // Nothing was sent yet: the page says where it will go, and the link's expiry no longer matters.
    expect(await page.getByTestId("claim-destination-label").innerText()).toBe("To be sent to");
    expect(await page.locator("main").innerText()).not.toContain("Sent to");
    expect(await page.getByTestId("claim-expiry").count()).toBe(0);
    expect(await page.locator('[aria-current="step"]').innerText()).toBe("Waiting for approval");
    expect(await payoutRow(t, refundId)).toMatchObject({
      status: "pending_approval",
      address: payer.address,
    });

    // A second operator (admin, TOTP enrolled) approves it with a fresh code.
    const owner = await adminCookie(app);
    await createOperatorViaApi(app, owner, { email: "approver@example.com", role: "admin" });
    const first = await operatorCookie(app, "approver@example.com");
    const { secret } = await enrolTotp(app, first, () => t.clock.now());
    t.clock.advance(31_000);
    const approver = await operatorCookie(app, "approver@example.com", {
      totpCode: totpAt(secret, t.clock.now()),
    });
    t.clock.advance(31_000);
    const approved = await http(
      "POST",
      `/api/v1/admin/payouts/${refundId}/approve`,
      { cookie: approver },
      { totp_code: totpAt(secret, t.clock.now()) },
    );
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    await expect.poll(() => page.getByTestId("headline").innerText(), { timeout: 60_000 }).toBe("Approved");

    // The sender pays it from the hot wallet on the devnet; the page follows to completion.
    const before = await usdtBalance(t.devnet, payer.address);
    const done = await sendPayoutUntil(t, refundId);
    await expect
      .poll(() => page.getByTestId("headline").innerText(), { timeout: 60_000 })
      .toBe("Refund completed");
    expect(done.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await page.getByTestId("claim-tx-hash").innerText()).toBe(done.txHash);
    expect(await page.getByTestId("claim-destination-label").innerText()).toBe("Sent to");
    expect(await usdtBalance(t.devnet, payer.address)).toBe(before + 5n * USDT);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
    expect(problems).toEqual([]);
  }, 240_000);

  it("says when a link is unknown or has expired", async () => {
    await page.goto(`${base}/refund/no-such-refund-token-0123456789`);
    await expect
      .poll(() => page.getByTestId("headline").innerText(), { timeout: 20_000 })
      .toBe("Refund not found");

    const created = await merchant("POST", "/api/v1/payments", {
      external_id: "claim-order-2",
      amount: "3",
      currency: "USDT",
      callback_url: "https://shop.example.com/cb",
    });
    const order = created.body as { id: string; address: string };
    await t.pay(order.address, 3n * USDT);
    t.mine(1);
    await t.finalize();
    const refund = await merchant("POST", `/api/v1/payments/${order.id}/refunds`, { amount: "1" });
    expect(refund.status).toBe(201);
    t.clock.advance(8 * 24 * 3600 * 1000); // past the 7 days of the link
    await page.goto(`${base}${new URL(refund.body.claim_url as string).pathname}`);
    await expect
      .poll(() => page.getByTestId("headline").innerText(), { timeout: 20_000 })
      .toBe("This refund link has expired");
    expect(await page.getByTestId("claim-address").count()).toBe(0);
    expect(problems).toEqual([]);
  }, 120_000);
});
