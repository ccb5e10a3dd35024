/// <reference lib="dom" />
/**
 * The dashboard's refunds and payouts (DESIGN.md 14) in a real Chromium against the real app over
 * HTTP and the devnet: the Payouts page's tabs list each state's payouts (sent, failed on chain,
 * rejected, approved, waiting); the detail shows events and the transaction with its TRX burnt; the
 * float shows the hot wallet's balance, the low-float warning and the top-up QR; the approve
 * dialog asks an enrolled approver for a TOTP code (a wrong one approves nothing, the right one
 * approves); the owner's own refund is refused by four eyes; a viewer sees no decision buttons;
 * the order page lists and creates refunds (with a claim link when no address is given); the
 * merchant page shows the ledger balance. An Arbitrum payout (an Anvil devnet over HTTP) approved in
 * the dialog by the second operator is paid once by the EVM sender, and its detail shows the gas
 * its receipt says it cost.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { addresses, payouts, payoutTransactions } from "../../src/db/schema.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { buildApp, type App } from "../../src/http/app.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { formatAmount } from "../../src/money.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import { adminCookie } from "../helpers/admin.js";
import { launchChromium } from "../helpers/chromium.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import {
  createOperatorViaApi,
  enrolTotp,
  OPERATOR_PASSWORD,
  operatorCookie,
  totpAt,
} from "../helpers/operators.js";
import { newTronAccount, payoutRow, sendPayoutUntil } from "../helpers/payout-chain.js";
import { usdtBalance } from "../helpers/usdt.js";
import { listenLocal } from "../helpers/app.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { randomBytes } from "node:crypto";
import { Wallet } from "ethers";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { runEvmPayouts } from "../../src/payouts/evm-send.js";
import { poll } from "../helpers/poll.js";

const anvil = evmDevnetForFile();
const evmHot = new Wallet("0x" + randomBytes(32).toString("hex"));

const USDT = 1_000_000n;
let t: ChainTest;
let app: App;
let base: string;
let browser: Browser;
let apiKey: string;
let merchantId: string;
let ownerCookie: string;
let approverCookie: string;
let secret: string;
/** The owner's TOTP secret, once the owner enrols (to reject money out, DESIGN.md 12). */
let ownerSecret: string | undefined;
function ownerCode(): string {
  if (ownerSecret === undefined) return "";
  t.clock.advance(31_000);
  return totpAt(ownerSecret, t.clock.now());
}
let hot: { privateKey: string; address: string };
let cold: { privateKey: string; address: string };
const problems: string[] = [];
const contexts: BrowserContext[] = [];

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

/** A TOTP code of a step never used before (codes are single use). */
function freshCode(): string {
  t.clock.advance(31_000);
  return totpAt(secret, t.clock.now());
}

async function newPayout(externalId: string, amount: string): Promise<string> {
  const reply = await merchant("POST", "/api/v1/payouts", {
    external_id: externalId,
    amount,
    address: (await newTronAccount()).address,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id as string;
}

async function approveViaApi(id: string): Promise<void> {
  const reply = await http(
    "POST",
    `/api/v1/admin/payouts/${id}/approve`,
    { cookie: approverCookie },
    { totp_code: freshCode() },
  );
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

async function openAs(fields: { email?: string; password: string; totp?: string }): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  await page.goto(`${base}/admin`);
  await page.getByTestId("email").fill(fields.email ?? "");
  await page.getByTestId("password").fill(fields.password);
  await page.getByTestId("totp").fill(fields.totp ?? "");
  await page.getByTestId("login").click();
  await expect.poll(() => page.getByTestId("who").count(), { timeout: 20_000 }).toBe(1);
  return page;
}

const rowOf = (page: Page, id: string) => page.getByTestId(`payout-${id}`);

let orderId: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  await ensureWebBuild();
  hot = await newTronAccount();
  cold = await newTronAccount();
  t = await startChainTest({
    env: {
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: cold.address,
      SWEEP_ENABLED: "false",
      CHAINS: "tron,arbitrum",
      ...evmChainEnv("arbitrum", anvil()),
      ARBITRUM_FINALITY: "finalized",
      EVM_HOT_WALLET_PRIVATE_KEY: evmHot.privateKey,
    },
  });
  t.clock.set(new Date());
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "1000", usdt: "100", solidify: true });
  await t.scanner.sync();
  app = await buildApp(t.ctx);
  base = await listenLocal(app);
  const created = await createMerchant(t.ctx, { name: "Payout Page Shop", webhookSecret: "whsec-page-test" });
  apiKey = created.apiKey;
  merchantId = created.merchant.id;

  ownerCookie = await adminCookie(app);
  await createOperatorViaApi(app, ownerCookie, { email: "approver@page.example", role: "admin" });
  await createOperatorViaApi(app, ownerCookie, { email: "viewer@page.example", role: "viewer" });
  secret = (await enrolTotp(app, await operatorCookie(app, "approver@page.example"), () => t.clock.now()))
    .secret;
  approverCookie = await operatorCookie(app, "approver@page.example", { totpCode: freshCode() });

  // The merchant's balance: one paid order of 60 USDT.
  const order = await merchant("POST", "/api/v1/payments", {
    external_id: "page-order-1",
    amount: "60",
    currency: "USDT",
    callback_url: "https://shop.example.com/cb",
  });
  expect(order.status).toBe(201);
  orderId = order.body.id as string;
  await t.pay(order.body.address as string, 60n * USDT);
  t.mine(1);
  await t.finalize();

  // One payout per state.
  ids.queue = await newPayout("po-queue", "3");
  const refund = await merchant("POST", `/api/v1/payments/${orderId}/refunds`, { amount: "2" });
  expect(refund.status).toBe(201);
  ids.awaiting = refund.body.id as string;
  ids.done = await newPayout("po-done", "4");
  await approveViaApi(ids.done);
  await sendPayoutUntil(t, ids.done, ["completed"]);
  ids.failed = await newPayout("po-fail", "5");
  await approveViaApi(ids.failed);
  // Between storing and broadcasting, the hot wallet's USDT leaves: the transfer REVERTs on chain.
  await sendPayoutUntil(t, ids.failed, ["failed"], {
    onStep: async (step, id) => {
      if (step !== "stored" || id !== ids.failed) return;
      await t.pay(cold.address, await usdtBalance(t.devnet, hot.address), { privateKey: hot.privateKey });
      t.mine(1);
    },
  });
  ids.rejected = await newPayout("po-reject", "1");
  const rejected = await http(
    "POST",
    `/api/v1/admin/payouts/${ids.rejected}/reject`,
    { cookie: approverCookie },
    { reason: "unknown recipient", totp_code: freshCode() },
  );
  expect(rejected.status).toBe(200);
  ids.flight = await newPayout("po-flight", "6");
  await approveViaApi(ids.flight);

  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await app?.close();
  await t?.close();
});

describe("the Payouts page", () => {
  let page: Page;

  it("lists each state under its tab; the float is short while the hot wallet is empty, with its QR", async () => {
    page = await openAs({ email: "approver@page.example", password: OPERATOR_PASSWORD, totp: freshCode() });
    await page.getByTestId("nav-payouts").click();
    await expect.poll(() => page.getByTestId("payouts").count(), { timeout: 20_000 }).toBe(1);
    expect(await rowOf(page, ids.queue!).count()).toBe(1);
    expect(await page.getByTestId("payouts").locator("tbody tr").count()).toBe(1);
    await expect.poll(() => page.getByTestId("awaiting-address").innerText()).toContain("Refund");
    expect(await page.getByTestId("awaiting-address").getByTestId(`payout-${ids.awaiting}`).count()).toBe(1);

    // The hot wallet holds nothing (the failed payout's drain): 6 USDT approved cannot leave.
    await expect
      .poll(() => page.getByTestId("float-tron-USDT-balance").innerText(), { timeout: 20_000 })
      .toBe("0.000000 USDT");
    expect(await page.getByTestId("float-low").innerText()).toContain("TRON USDT");
    expect(await page.getByTestId("float-tron-USDT-low").innerText()).toContain("6.000000 USDT short");
    expect(await page.getByTestId("float-tron-USDT-approved").innerText()).toBe("6.000000 USDT (1)");
    expect(await page.getByTestId("float-address").innerText()).toBe(hot.address);
    expect(await page.getByTestId("float-qr").getAttribute("src")).toMatch(/^data:image\/svg\+xml/);
    expect(await page.getByTestId("float-trx").innerText()).toMatch(/TRX$/);

    const expectTab = async (tab: string, id: string, count: number) => {
      await page.getByTestId(`tab-${tab}`).click();
      await expect
        .poll(() => page.getByTestId(`panel-${tab}`).getByTestId(`payout-${id}`).count(), { timeout: 20_000 })
        .toBe(1);
      expect(await page.getByTestId("payouts").locator("tbody tr").count()).toBe(count);
      expect(await page.getByTestId(`tab-${tab}`).getAttribute("aria-selected")).toBe("true");
    };
    await expectTab("flight", ids.flight!, 1);
    // Accessible names: the tab and its panel are found by role and label.
    expect(await page.getByRole("tab", { name: "In flight", selected: true }).count()).toBe(1);
    expect(await page.getByRole("tabpanel", { name: "In flight" }).count()).toBe(1);
    await expectTab("completed", ids.done!, 1);
    await expectTab("failed", ids.failed!, 1);
    await expect.poll(() => rowOf(page, ids.failed!).innerText()).toContain("REVERT");
    await expectTab("closed", ids.rejected!, 1);

    // A top-up: the warning goes once the float covers the approved payout.
    await t.devnetPost("/devnet/fund", { address: hot.address, usdt: "100", solidify: true });
    await page.getByTestId("payouts-refresh").click();
    await expect
      .poll(() => page.getByTestId("float-tron-USDT-balance").innerText(), { timeout: 20_000 })
      .toBe("100.000000 USDT");
    expect(await page.getByTestId("float-low").count()).toBe(0);
    expect(await page.getByTestId("float-tron-USDT-low").count()).toBe(0);
  });

  it("shows a payout's events and its transaction with the TRX burnt", async () => {
    await page.getByTestId("tab-completed").click();
    await rowOf(page, ids.done!).getByTestId("payout-link").click();
    await expect.poll(() => page.getByTestId("payout-transactions").count(), { timeout: 20_000 }).toBe(1);
    const [sent] = await t.ctx.db
      .select()
      .from(payoutTransactions)
      .where(eq(payoutTransactions.payoutId, ids.done!));
    if (!sent) throw new Error("no transaction stored for the completed payout");
    expect(sent.feeSun).toBeGreaterThan(0n); // burn mode: the hot wallet has no stake
    const table = await page.getByTestId("payout-transactions").innerText();
    expect(table).toContain(sent.txHash);
    expect(table).toContain(`${formatAmount(sent.feeSun ?? 0n)} TRX`);
    expect(await page.getByTestId("field-tx_hash").innerText()).toBe(sent.txHash);
    expect(await page.getByTestId("field-trx_burnt").innerText()).toBe(
      `${formatAmount(sent.feeSun ?? 0n)} TRX`,
    );
    const events = await page.getByTestId("payout-events").innerText();
    for (const step of ["Awaiting approval → Approved", "Approved → Sending", "Sending → Completed"]) {
      expect(events).toContain(step);
    }
    expect(await page.getByTestId("approve-payout").count()).toBe(0);
  });

  it("approves with the approver's TOTP code in an in-page dialog: a wrong code approves nothing", async () => {
    await page.getByTestId("nav-payouts").click();
    await expect.poll(() => rowOf(page, ids.queue!).count(), { timeout: 20_000 }).toBe(1);
    await rowOf(page, ids.queue!).getByTestId("approve-payout").click();
    const dialog = page.getByRole("dialog", { name: "Approve payout of 3.000000 USDT" });
    await expect.poll(() => dialog.count()).toBe(1);
    expect(await page.getByLabel("Code from your authenticator app").count()).toBe(1);
    expect(await dialog.innerText()).toContain("Approve payout of 3.000000 USDT");

    // A code that is none of the three accepted steps (one step of drift each way).
    t.clock.advance(31_000);
    const now = t.clock.now().getTime();
    const near = [-30_000, 0, 30_000].map((d) => totpAt(secret, new Date(now + d)));
    let wrong = "000000";
    for (let n = 0; near.includes(wrong); n++) wrong = String(n).padStart(6, "0");
    await page.getByTestId("decision-totp").fill(wrong);
    await page.getByTestId("decision-confirm").click();
    await expect
      .poll(() => page.getByTestId("decision-error").innerText(), { timeout: 15_000 })
      .toContain("TOTP_INVALID");
    expect((await payoutRow(t, ids.queue!)).status).toBe("pending_approval");

    await page.getByTestId("decision-totp").fill(freshCode());
    await page.getByTestId("decision-confirm").click();
    await expect.poll(() => dialog.count(), { timeout: 15_000 }).toBe(0);
    expect(await payoutRow(t, ids.queue!)).toMatchObject({
      status: "approved",
      decidedByLabel: expect.any(String),
    });
    await expect.poll(() => rowOf(page, ids.queue!).count()).toBe(0);
  });

  it("approves an Arbitrum payout in the dialog (a second operator); the EVM sender pays it once", async () => {
    // The approver's page of the tests above (one more login would trip the login limiter later on).
    const to = Wallet.createRandom().address;
    const reply = await merchant("POST", "/api/v1/payouts", {
      external_id: "po-arbitrum",
      amount: "1.25",
      address: to,
      chain: "arbitrum",
    });
    expect(reply.status).toBe(201);
    const id = reply.body.id as string;
    await anvil().rpc("anvil_setBalance", [evmHot.address, "0x" + (10n ** 20n).toString(16)]);
    await sendToken(anvil(), anvil().usdtContract, evmHot.address, 10_000_000n);
    await anvil().mine();

    await page.reload();
    await page.getByTestId("nav-payouts").click();
    await expect.poll(() => rowOf(page, id).count(), { timeout: 20_000 }).toBe(1);
    await rowOf(page, id).getByTestId("approve-payout").click();
    const dialog = page.getByRole("dialog", { name: "Approve payout of 1.250000 USDT" });
    await expect.poll(() => dialog.count()).toBe(1);
    await page.getByTestId("decision-totp").fill(freshCode());
    await page.getByTestId("decision-confirm").click();
    await expect.poll(() => dialog.count(), { timeout: 15_000 }).toBe(0);
    expect(await payoutRow(t, id)).toMatchObject({ status: "approved", decidedByLabel: expect.any(String) });

    const signers = signerLookup(t.ctx, "arbitrum");
    const done = await poll("the Arbitrum payout completed", () => payoutRow(t, id), {
      until: (row) => row.status === "completed",
      between: async () => {
        await runEvmPayouts(t.ctx, "arbitrum");
        await runOutbox(t.ctx, "arbitrum", { signers });
        await anvil().mine();
        t.clock.advance(3_000);
      },
      timeoutMs: 30_000,
    });
    const word = (a: string) => a.toLowerCase().replace(/^0x/, "").padStart(64, "0");
    const held = await anvil().rpc<string>("eth_call", [
      { to: anvil().usdtContract, data: "0x70a08231" + word(to) },
      "latest",
    ]);
    expect(BigInt(held)).toBe(1_250_000n);
    const nonce = await anvil().rpc<string>("eth_getTransactionCount", [evmHot.address, "latest"]);
    expect(Number(BigInt(nonce))).toBe(1);
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);

    // Its detail shows what the chain charged, from the receipt: gas used x effective gas price,
    // exactly, in ETH and in wei, on the payout and on its one transaction.
    const receipt = await anvil().rpc<{ gasUsed: string; effectiveGasPrice: string }>(
      "eth_getTransactionReceipt",
      [done.txHash],
    );
    const gasUsed = BigInt(receipt.gasUsed);
    const wei = gasUsed * BigInt(receipt.effectiveGasPrice);
    const eth = `${wei / 10n ** 18n}.${(wei % 10n ** 18n).toString().padStart(18, "0")} ETH`;
    await page.goto(`${base}/admin/payouts/${id}`);
    await expect.poll(() => page.getByTestId("field-gas_cost").count(), { timeout: 20_000 }).toBe(1);
    expect(await page.getByTestId("field-gas_cost").innerText()).toBe(eth);
    expect(await page.getByTestId("field-gas_cost_wei").innerText()).toBe(String(wei));
    expect(await page.getByTestId("field-trx_burnt").count()).toBe(0);
    const cells = await page.getByTestId(`payout-tx-${done.txHash}`).locator("td").allInnerTexts();
    expect(cells.slice(0, 9)).toEqual([
      "1",
      done.txHash,
      "0",
      "0",
      "final",
      "SUCCESS",
      String(gasUsed),
      String(BigInt(receipt.effectiveGasPrice)),
      eth,
    ]);
  });
});

describe("an approver who enrolled TOTP after the page loaded", () => {
  it("is asked for the code when the server requires it, then approves", async () => {
    await createOperatorViaApi(app, ownerCookie, { email: "late@page.example", role: "admin" });
    const late = await openAs({ email: "late@page.example", password: OPERATOR_PASSWORD });
    const id = await newPayout("po-late", "0.25");
    await late.getByTestId("nav-payouts").click();
    await expect.poll(() => rowOf(late, id).count(), { timeout: 20_000 }).toBe(1);
    // Enrolled elsewhere (another session): this page still thinks TOTP is off.
    const { secret: lateSecret } = await enrolTotp(app, await operatorCookie(app, "late@page.example"), () =>
      t.clock.now(),
    );
    await rowOf(late, id).getByTestId("approve-payout").click();
    expect(await late.getByTestId("decision-totp").count()).toBe(0);
    await late.getByTestId("decision-confirm").click();
    await expect
      .poll(() => late.getByTestId("decision-error").innerText(), { timeout: 15_000 })
      .toContain("TOTP_REQUIRED");
    expect((await payoutRow(t, id)).status).toBe("pending_approval");
    t.clock.advance(31_000);
    await late.getByTestId("decision-totp").fill(totpAt(lateSecret, t.clock.now()));
    await late.getByTestId("decision-confirm").click();
    await expect.poll(() => late.getByRole("dialog").count(), { timeout: 15_000 }).toBe(0);
    expect((await payoutRow(t, id)).status).toBe("approved");
    expect(problems).toEqual([]);
  });
});

describe("refunds from the order page, four eyes, roles and balances", () => {
  let owner: Page;

  it("lists the order's refunds and creates one with an address and one with a claim link", async () => {
    owner = await openAs({ password: TEST_ADMIN_PASSWORD });
    await owner.goto(`${base}/admin/orders/${orderId}`);
    await expect.poll(() => owner.getByTestId("refunds").count(), { timeout: 20_000 }).toBe(1);
    expect(await owner.getByTestId("refunds").getByTestId(`refund-${ids.awaiting}`).innerText()).toContain(
      "waiting for the payer",
    );

    const payer = await newTronAccount();
    await owner.getByTestId("refund-amount").fill("1.5");
    await owner.getByTestId("refund-address").fill(payer.address);
    await owner.getByTestId("refund-reason").fill("goodwill");
    await owner.getByTestId("create-refund").click();
    await expect
      .poll(() => owner.getByTestId("refund-created").innerText(), { timeout: 15_000 })
      .toContain("Awaiting approval");
    expect(await owner.getByTestId("refund-claim-url").count()).toBe(0);
    await expect.poll(() => owner.getByTestId("refunds").locator("tbody tr").count()).toBe(2);
    const [mine] = await t.ctx.db
      .select()
      .from(payouts)
      .where(and(eq(payouts.orderId, orderId), eq(payouts.address, payer.address)));
    if (!mine) throw new Error("the refund from the order page was not stored");
    ids.ownRefund = mine.id;
    expect(mine).toMatchObject({ status: "pending_approval", reason: "goodwill" });

    await owner.getByTestId("refund-amount").fill("0.5");
    await owner.getByTestId("create-refund").click();
    await expect
      .poll(() => owner.getByTestId("refund-claim-url").innerText(), { timeout: 15_000 })
      .toMatch(/\/refund\/[A-Za-z0-9_-]{20,}$/);
    await expect.poll(() => owner.getByTestId("refunds").locator("tbody tr").count()).toBe(3);

    // Too much: the server's refusal is shown, nothing is stored.
    const before = (await t.ctx.db.select().from(payouts).where(eq(payouts.orderId, orderId))).length;
    await owner.getByTestId("refund-amount").fill("500");
    await owner.getByTestId("create-refund").click();
    await expect
      .poll(() => owner.getByTestId("refund-error").innerText(), { timeout: 15_000 })
      .toMatch(/REFUND_EXCEEDS_RECEIVED|INSUFFICIENT_BALANCE/);
    expect((await t.ctx.db.select().from(payouts).where(eq(payouts.orderId, orderId))).length).toBe(before);
  });

  it("refuses the owner's approval of its own refund (four eyes), then rejects it with a reason", async () => {
    await owner.goto(`${base}/admin/payouts`);
    await expect.poll(() => rowOf(owner, ids.ownRefund!).count(), { timeout: 20_000 }).toBe(1);
    await rowOf(owner, ids.ownRefund!).getByTestId("approve-payout").click();
    await expect.poll(() => owner.getByRole("dialog").count()).toBe(1);
    expect(await owner.getByTestId("decision-totp").count()).toBe(0); // the owner has no TOTP
    await owner.getByTestId("decision-confirm").click();
    await expect
      .poll(() => owner.getByTestId("decision-error").innerText(), { timeout: 15_000 })
      .toContain("FOUR_EYES_REQUIRED");
    expect((await payoutRow(t, ids.ownRefund!)).status).toBe("pending_approval");
    await owner.getByTestId("decision-close").click();
    await expect.poll(() => owner.getByRole("dialog").count()).toBe(0);

    await rowOf(owner, ids.ownRefund!).getByTestId("reject-payout").click();
    // The owner has no second factor: the dialog says so and points to the Security page.
    expect(await owner.getByTestId("decision-enrol-link").getAttribute("href")).toBe("/admin/security");
    await owner.getByTestId("decision-confirm").click();
    await expect.poll(() => owner.getByTestId("decision-error").innerText()).toContain("Give a reason");
    await owner.getByTestId("decision-reason").fill("asked by mistake");
    await owner.getByTestId("decision-confirm").click();
    await expect
      .poll(() => owner.getByTestId("decision-error").innerText(), { timeout: 15_000 })
      .toContain("SECOND_FACTOR_REQUIRED");
    expect((await payoutRow(t, ids.ownRefund!)).status).toBe("pending_approval");
    // Enrolled elsewhere, the owner is asked for the code and rejects.
    ownerSecret = (await enrolTotp(app, ownerCookie, () => t.clock.now(), TEST_ADMIN_PASSWORD)).secret;
    await owner.getByTestId("decision-confirm").click();
    await expect
      .poll(() => owner.getByTestId("decision-error").innerText(), { timeout: 15_000 })
      .toContain("TOTP_REQUIRED");
    await owner.getByTestId("decision-totp").fill(ownerCode());
    await owner.getByTestId("decision-confirm").click();
    await expect.poll(() => owner.getByRole("dialog").count(), { timeout: 15_000 }).toBe(0);
    expect(await payoutRow(t, ids.ownRefund!)).toMatchObject({ status: "rejected", reason: "goodwill" });

    // Cancel the refund still waiting for its payer's address.
    const [claimable] = await t.ctx.db
      .select()
      .from(payouts)
      .where(and(eq(payouts.orderId, orderId), eq(payouts.status, "awaiting_address")))
      .orderBy(desc(payouts.createdAt));
    if (!claimable) throw new Error("no refund awaits an address");
    await expect.poll(() => rowOf(owner, claimable.id).count()).toBe(1);
    await rowOf(owner, claimable.id).getByTestId("cancel-payout").click();
    await owner.getByTestId("decision-confirm").click();
    await expect.poll(() => owner.getByRole("dialog").count(), { timeout: 15_000 }).toBe(0);
    expect((await payoutRow(t, claimable.id)).status).toBe("cancelled");
  });

  it("shows the merchant's ledger balance on the merchant page", async () => {
    const me = await merchant("GET", "/api/v1/merchant/me");
    const balance = me.body.balance as { available: string; reserved: string };
    expect(balance.reserved).not.toBe("0.000000");
    await owner.getByTestId("nav-merchants").click();
    await owner.getByTestId("merchant-Payout Page Shop").getByTestId("merchant-link").click();
    // One panel per currency the deployment takes (arbitrum adds USDC): the USDT one holds the money.
    const usdt = owner.getByTestId("merchant-balance-USDT");
    await expect
      .poll(() => usdt.getByTestId("balance-available").innerText(), { timeout: 20_000 })
      .toBe(`${balance.available} USDT`);
    expect(await usdt.getByTestId("balance-reserved").innerText()).toBe(`${balance.reserved} USDT`);
    const usdc = owner.getByTestId("merchant-balance-USDC");
    expect(await usdc.getByTestId("balance-available").innerText()).toBe("0.000000 USDC");
    expect(owner.url()).toContain(`/admin/merchants/${merchantId}`);
  });

  it("shows a viewer the payouts and the float without a decision button", async () => {
    const viewer = await openAs({ email: "viewer@page.example", password: OPERATOR_PASSWORD });
    await viewer.getByTestId("nav-payouts").click();
    await expect
      .poll(() => viewer.getByTestId("float-tron-USDT-balance").innerText(), { timeout: 20_000 })
      .toBe("100.000000 USDT");
    // The QR is drawn after the float arrives (an async encode): waited for, not counted at once.
    await expect.poll(() => viewer.getByTestId("float-qr").count(), { timeout: 10_000 }).toBe(1);
    await viewer.getByTestId("tab-flight").click();
    await expect.poll(() => rowOf(viewer, ids.queue!).count(), { timeout: 20_000 }).toBe(1);
    expect(await rowOf(viewer, ids.flight!).count()).toBe(1);
    for (const button of ["approve-payout", "reject-payout", "cancel-payout"]) {
      expect(await viewer.getByTestId(button).count()).toBe(0);
    }
    // The approver sees the same approved payouts with their Cancel button.
    await owner.goto(`${base}/admin/payouts?tab=flight`);
    await expect.poll(() => rowOf(owner, ids.flight!).getByTestId("cancel-payout").count()).toBe(1);
    expect(problems).toEqual([]);
  });
});

describe("a stray transfer's refund", () => {
  it("is created from the stray's page with a claim link, and the stray shows refunded", async () => {
    await fillAddressPool(t.ctx);
    const [spare] = await t.ctx.db
      .select()
      .from(addresses)
      // A TRON address: the page's deployment also runs arbitrum, whose pool fills too.
      .where(and(eq(addresses.status, "free"), eq(addresses.family, "tron")))
      .orderBy(desc(addresses.derivationIndex))
      .limit(1);
    if (!spare) throw new Error("no free address for the stray");
    await t.pay(spare.address, 7n * USDT);
    t.mine(1);
    await t.finalize();

    const owner = await openAs({ password: TEST_ADMIN_PASSWORD, totp: ownerCode() });
    await owner.getByTestId("nav-strays").click();
    await expect
      .poll(() => owner.getByTestId("strays").innerText(), { timeout: 20_000 })
      .toContain(spare.address);
    await owner.getByTestId("strays").getByRole("link").first().click();
    await expect.poll(() => owner.getByTestId("stray-refund-panel").count(), { timeout: 20_000 }).toBe(1);
    await owner.getByTestId("stray-refund").click();
    await expect.poll(() => owner.getByTestId("stray-refund-error").innerText()).toContain("Give a reason");
    await owner.getByTestId("stray-refund-amount").fill("7");
    await owner.getByTestId("stray-refund-reason").fill("sent to an address nobody gave out");
    await owner.getByTestId("stray-refund").click();
    await expect
      .poll(() => owner.getByTestId("stray-refund-claim-url").innerText(), { timeout: 15_000 })
      .toMatch(/\/refund\/[A-Za-z0-9_-]{20,}$/);
    await expect.poll(() => owner.getByTestId("stray-resolution").innerText()).toBe("Refunded");
    const [refund] = await t.ctx.db
      .select()
      .from(payouts)
      .where(and(eq(payouts.kind, "refund"), eq(payouts.amount, 7n * USDT)));
    expect(refund).toMatchObject({ status: "awaiting_address", address: null });
    expect(refund?.strayTransferId).toBeTruthy();
    // Nothing more is left of the stray to refund: the server's refusal is shown.
    await owner.getByTestId("stray-refund-amount").fill("1");
    await owner.getByTestId("stray-refund-reason").fill("again");
    await owner.getByTestId("stray-refund").click();
    await expect
      .poll(() => owner.getByTestId("stray-refund-error").innerText(), { timeout: 15_000 })
      .toContain("REFUND_EXCEEDS_RECEIVED");
    expect(problems).toEqual([]);
  });
});
