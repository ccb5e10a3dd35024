/**
 * Refunds and payouts end to end on the devnet (DESIGN.md 14): a merchant's balance from a real
 * payment, payouts and refunds through the real HTTP API, four-eyes approval, refusals that change
 * nothing, sending from the hot wallet by runDuePayouts against the devnet over HTTP, the
 * recipient's on-chain balance, REVERT -> failed with the reservation released, a fork that drops
 * the transaction, and check-ledger after each. PGlite or PostgreSQL (TEST_DATABASE_URL).
 */
import { eq, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payoutTransactions, payouts, webhookDeliveries } from "../../src/db/schema.js";
import { queryRows } from "../../src/db/query-rows.js";
import { buildApp } from "../../src/http/app.js";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { checkLedger } from "../../src/ledger/check-ledger.js";
import { refreshMetricsSnapshot } from "../../src/metrics/refresh-metrics-snapshot.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { finishPayouts } from "../../src/payouts/payout-store.js";
import { PAYOUT_MAX_WAIT_MS, runDuePayouts, type SenderOptions } from "../../src/payouts/send-payouts.js";
import { adminCookie } from "../helpers/admin.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { registerSoftwarePasskey, stepUpPasskey, type SoftwarePasskey } from "../helpers/software-passkey.js";
import { createOperatorViaApi, enrolTotp, operatorCookie, totpAt } from "../helpers/operators.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

const USDT = 1_000_000n;
let t: ChainTest;
let app: FastifyInstance;
let cookie: string;
let apiKey: string;
let hot: { privateKey: string; address: string };
let cold: { address: string };

async function newAccount() {
  const account = await TronWeb.createAccount();
  return { privateKey: account.privateKey, address: account.address.base58 as string };
}

const merchantCall = (method: "GET" | "POST", url: string, payload?: Record<string, unknown>) =>
  app.inject({
    method,
    url,
    headers: { "x-api-key": apiKey },
    ...(payload === undefined ? {} : { payload }),
  });
/** The owner's passkey, once registered: approvals and rejections need a second factor, always. */
let ownerKey: SoftwarePasskey | undefined;
async function ownerStepUp(): Promise<Record<string, unknown>> {
  return ownerKey === undefined ? {} : { passkey: await stepUpPasskey(app, cookie, ownerKey) };
}
const adminCall = async (method: "GET" | "POST", url: string, payload?: Record<string, unknown>) => {
  const body =
    payload !== undefined && /\/(approve|reject)$/.test(url)
      ? { ...payload, ...(await ownerStepUp()) }
      : payload;
  return app.inject({ method, url, headers: { cookie }, ...(body === undefined ? {} : { payload: body }) });
};

async function balance(): Promise<{ available: string; reserved: string }> {
  return (await merchantCall("GET", "/api/v1/merchant/me")).json().balance;
}

/** A paid, confirmed order of the test merchant. */
async function paidOrder(amount: string, micro: bigint): Promise<{ id: string; address: string }> {
  const created = await merchantCall("POST", "/api/v1/payments", {
    external_id: `order-${Math.random()}`,
    amount,
    currency: "USDT",
    callback_url: "https://shop.example.com/cb",
  });
  expect(created.statusCode).toBe(201);
  const order = created.json() as { id: string; address: string };
  await t.pay(order.address, micro);
  t.mine(1);
  await t.finalize();
  return order;
}

/** Mines, solidifies and runs the sender until the payout ends (or the rounds run out). */
async function sendUntilDone(id: string, options: SenderOptions = {}, rounds = 12) {
  for (let i = 0; i < rounds; i++) {
    await runDuePayouts(t.ctx, options);
    t.devnet.mine(SOLIDIFY_AFTER + 1);
    t.clock.advance(60_000); // past any wait
    const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
    if (row?.status === "completed" || row?.status === "failed") return row;
  }
  const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
  return row;
}

/**
 * Credits the merchant with an order paid `paid` USDT, then leaves the hot wallet holding exactly
 * `usdt` USDT, settled.
 */
async function settleFloatTo(usdt: bigint, paid = usdt): Promise<void> {
  await paidOrder(String(paid), paid * USDT);
  const held = await usdtBalance(t.devnet, hot.address);
  await t.pay(cold.address, held - usdt * USDT, { privateKey: hot.privateKey });
  t.mine(SOLIDIFY_AFTER + 1);
  expect(await usdtBalance(t.devnet, hot.address)).toBe(usdt * USDT);
}

async function createPayout(externalId: string, amount: string, to: string): Promise<string> {
  const created = await merchantCall("POST", "/api/v1/payouts", {
    external_id: externalId,
    amount,
    address: to,
  });
  return created.json().id as string;
}

/**
 * Sends payouts `a` (12 USDT to toA) and `b` (8 USDT to toB) to the end, out of a float of exactly
 * 20: both recipients are paid, the float is empty and the ledger proves itself. Then refills the
 * float for the next tests.
 */
async function expectBothPaidFromTheFloat(a: string, b: string, toA: string, toB: string): Promise<void> {
  expect(await sendUntilDone(a)).toMatchObject({ status: "completed" });
  expect(await sendUntilDone(b)).toMatchObject({ status: "completed" });
  expect([
    await usdtBalance(t.devnet, toA),
    await usdtBalance(t.devnet, toB),
    await usdtBalance(t.devnet, hot.address),
  ]).toEqual([12n * USDT, 8n * USDT, 0n]);
  expect(await checkLedger(t.ctx.db)).toEqual([]);
  await t.devnetPost("/devnet/fund", { address: hot.address, usdt: "1000", solidify: true });
}

async function snapshot() {
  const [row] = await queryRows<{ p: string; l: string; e: string }>(
    t.ctx.db,
    sql`SELECT (SELECT count(*) FROM payouts)::text AS p, (SELECT count(*) FROM ledger_transactions)::text AS l,
               (SELECT count(*) FROM payout_events)::text AS e`,
  );
  return { counts: row, balance: await balance() };
}

beforeAll(async () => {
  hot = await newAccount();
  cold = await newAccount();
  t = await startChainTest({
    env: {
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: cold.address,
      SWEEP_ENABLED: "false",
    },
  });
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "1000", usdt: "1000", solidify: true });
  await t.scanner.sync();
  app = await buildApp(t.ctx);
  await app.ready();
  cookie = await adminCookie(app);
  const created = await createMerchant(t.ctx, { name: "Payout Shop", webhookSecret: "whsec-payout-test" });
  apiKey = created.apiKey;
}, 120_000);
afterAll(async () => {
  await app?.close();
  await t?.close();
});

describe("payouts through the merchant API", () => {
  let recipient: string;
  let payoutId: string;

  it("reserves the amount of a new payout from the balance a real payment credited", async () => {
    await paidOrder("50", 50n * USDT);
    expect(await balance()).toEqual({ available: "50.000000", reserved: "0.000000" });
    recipient = (await newAccount()).address;
    const reply = await merchantCall("POST", "/api/v1/payouts", {
      external_id: "po-1",
      amount: "20",
      address: recipient,
      callback_url: "https://shop.example.com/payouts",
    });
    expect(reply.statusCode, reply.body).toBe(201);
    const body = reply.json();
    expect(body).toMatchObject({
      kind: "payout",
      status: "pending_approval",
      amount: "20.000000",
      address: recipient,
    });
    payoutId = body.id;
    expect(await balance()).toEqual({ available: "30.000000", reserved: "20.000000" });
    // the same request again: the same payout, nothing reserved twice
    const again = await merchantCall("POST", "/api/v1/payouts", {
      external_id: "po-1",
      amount: "20",
      address: recipient,
      callback_url: "https://shop.example.com/payouts",
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(payoutId);
    expect(await balance()).toEqual({ available: "30.000000", reserved: "20.000000" });
    expect((await merchantCall("GET", `/api/v1/payouts/${payoutId}`)).json().id).toBe(payoutId);
    expect(
      (await merchantCall("GET", "/api/v1/payouts")).json().data.map((p: { id: string }) => p.id),
    ).toContain(payoutId);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  it("refuses, changing nothing: another payload for the external_id, over the balance, bad and own addresses", async () => {
    const before = await snapshot();
    const refusals: [Record<string, unknown>, number, string][] = [
      [{ external_id: "po-1", amount: "21", address: recipient }, 409, "EXTERNAL_ID_CONFLICT"],
      [{ external_id: "po-2", amount: "30.000001", address: recipient }, 409, "INSUFFICIENT_BALANCE"],
      [{ external_id: "po-3", amount: "1", address: "TNotAnAddress" }, 400, "INVALID_ADDRESS"],
      [
        {
          external_id: "po-4",
          amount: "1",
          address: `${recipient.slice(0, -1)}${recipient.endsWith("a") ? "b" : "a"}`,
        },
        400,
        "INVALID_ADDRESS",
      ],
      [{ external_id: "po-5", amount: "1", address: hot.address }, 400, "ADDRESS_NOT_ALLOWED"],
      [{ external_id: "po-6", amount: "1", address: cold.address }, 400, "ADDRESS_NOT_ALLOWED"],
      [{ external_id: "po-7", amount: "1", address: t.devnet.usdtContract }, 400, "ADDRESS_NOT_ALLOWED"],
      [{ external_id: "po-9", amount: "-1", address: recipient }, 400, "INVALID_BODY"],
    ];
    const [deposit] = await queryRows<{ address: string }>(
      t.ctx.db,
      sql`SELECT address FROM addresses LIMIT 1`,
    );
    refusals.push([
      { external_id: "po-8", amount: "1", address: deposit?.address },
      400,
      "ADDRESS_NOT_ALLOWED",
    ]);
    for (const [payload, status, code] of refusals) {
      const reply = await merchantCall("POST", "/api/v1/payouts", payload);
      expect({ status: reply.statusCode, code: reply.json().code }, JSON.stringify(payload)).toEqual({
        status,
        code,
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it("is approved by an operator, sent from the hot wallet and solidified: the recipient gets exactly the amount", async () => {
    const hotBefore = await usdtBalance(t.devnet, hot.address);
    // Money out takes a second factor from every approver: the owner has none yet.
    const bare = await adminCall("POST", `/api/v1/admin/payouts/${payoutId}/approve`, {});
    expect(bare.statusCode).toBe(403);
    expect(bare.json().code).toBe("SECOND_FACTOR_REQUIRED");
    expect((await rowOfPayout(payoutId)).status).toBe("pending_approval");
    ownerKey = await registerSoftwarePasskey(app, cookie, t.ctx.config.publicBaseUrl, {
      currentPassword: TEST_ADMIN_PASSWORD,
    });
    const approved = await adminCall("POST", `/api/v1/admin/payouts/${payoutId}/approve`, {});
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({ status: "approved", decided_by: "owner" });
    const done = await sendUntilDone(payoutId);
    expect(done).toMatchObject({ status: "completed", attempts: 1 });
    expect(done?.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(done?.trxBurntSun).toBeGreaterThan(0n);
    expect(await usdtBalance(t.devnet, recipient)).toBe(20n * USDT);
    expect(hotBefore - (await usdtBalance(t.devnet, hot.address))).toBe(20n * USDT);
    const txs = await t.ctx.db
      .select()
      .from(payoutTransactions)
      .where(eq(payoutTransactions.payoutId, payoutId));
    expect(txs.map((tx) => tx.state)).toEqual(["solid"]);
    expect(await balance()).toEqual({ available: "30.000000", reserved: "0.000000" });
    // the payout webhook went to the callback_url it was created with
    const [delivery] = await t.ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.payoutId, payoutId));
    expect(delivery).toMatchObject({
      event: "payout.completed",
      callbackUrl: "https://shop.example.com/payouts",
    });
    expect(JSON.parse(delivery?.payload ?? "{}")).toMatchObject({
      event: "payout.completed",
      payout_id: payoutId,
      kind: "payout",
      amount: "20.000000",
      address: recipient,
      status: "completed",
      tx_hash: done?.txHash,
    });
    // nothing more is sent however often the sender runs
    await runDuePayouts(t.ctx);
    t.mine(SOLIDIFY_AFTER + 1);
    expect(await usdtBalance(t.devnet, recipient)).toBe(20n * USDT);
    const detail = (await adminCall("GET", `/api/v1/admin/payouts/${payoutId}`)).json();
    expect(detail.events.map((e: { event_type: string }) => e.event_type)).toEqual([
      "payout_created",
      "payout_approved",
      "payout_sending",
      "payout_completed",
    ]);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  it("ends failed with the reservation released when the transfer REVERTs on chain", async () => {
    const to = (await newAccount()).address;
    const created = await merchantCall("POST", "/api/v1/payouts", {
      external_id: "po-revert",
      amount: "5",
      address: to,
    });
    const id = created.json().id as string;
    await adminCall("POST", `/api/v1/admin/payouts/${id}/approve`, {});
    expect(await balance()).toEqual({ available: "25.000000", reserved: "5.000000" });
    // Between storing and broadcasting, the hot wallet's USDT leaves: the stored transfer reverts.
    const drain = async (step: string) => {
      if (step !== "stored") return;
      const all = await usdtBalance(t.devnet, hot.address);
      await t.pay(cold.address, all, { privateKey: hot.privateKey });
      t.mine(1);
    };
    const done = await sendUntilDone(id, { onStep: drain });
    expect(done).toMatchObject({ status: "failed" });
    expect(done?.lastError).toMatch(/REVERT/);
    expect(await usdtBalance(t.devnet, to)).toBe(0n);
    expect(await balance()).toEqual({ available: "30.000000", reserved: "0.000000" });
    expect(await checkLedger(t.ctx.db)).toEqual([]);
    expect((await evaluateAlerts(t.ctx)).fired).toContain("payout_failed");
    expect((await evaluateAlerts(t.ctx)).fired).not.toContain("payout_failed"); // once per failure
    // refill the float for the next tests
    await t.devnetPost("/devnet/fund", { address: hot.address, usdt: "1000", solidify: true });
  });

  it("waits while the float is short, then sends once it is topped up", async () => {
    const to = (await newAccount()).address;
    await paidOrder("2000", 2000n * USDT);
    const id = (
      await merchantCall("POST", "/api/v1/payouts", { external_id: "po-float", amount: "1500", address: to })
    ).json().id as string;
    await adminCall("POST", `/api/v1/admin/payouts/${id}/approve`, {});
    const first = await runDuePayouts(t.ctx);
    expect(first.waitingForFloat).toBe(1);
    const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
    expect(row).toMatchObject({ status: "approved", attempts: 0 });
    expect(row?.lastError).toMatch(/float/);
    expect(
      await t.ctx.db.select().from(payoutTransactions).where(eq(payoutTransactions.payoutId, id)),
    ).toEqual([]);
    // the operator hears of it, the dashboard counts it, and the metrics show the wait
    expect((await evaluateAlerts(t.ctx)).fired).toContain("payout_float_low");
    const float = (await adminCall("GET", "/api/v1/admin/payouts/float")).json();
    expect(float).toMatchObject({ waiting_for_float: 1, is_low: true });
    t.clock.advance(5_000);
    const { snapshot } = await refreshMetricsSnapshot(t.ctx, { intervalMs: 0 });
    expect(snapshot?.payouts?.approved).toBe(1);
    expect(snapshot?.payoutOldestApprovedAgeSeconds).toBeGreaterThanOrEqual(5);
    expect(snapshot?.payoutFloatUsdt).toBeLessThan(1500);
    await t.devnetPost("/devnet/fund", { address: hot.address, usdt: "1000", solidify: true });
    t.clock.advance(60_000);
    expect(await sendUntilDone(id)).toMatchObject({ status: "completed" });
    expect(await usdtBalance(t.devnet, to)).toBe(1500n * USDT);
    expect((await evaluateAlerts(t.ctx)).resolved).toContain("payout_float_low");
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  it("does not count a transaction already in a block twice: a float that covers exactly both payouts sends both", async () => {
    await settleFloatTo(20n);
    const [toA, toB] = [(await newAccount()).address, (await newAccount()).address];
    const a = await createPayout("po-exact-a", "12", toA);
    const b = await createPayout("po-exact-b", "8", toB);
    await adminCall("POST", `/api/v1/admin/payouts/${a}/approve`, {});
    await runDuePayouts(t.ctx); // A signed, stored, broadcast
    t.mine(1); // A in a block of the head: the head balance is 8 now, A not yet solidified
    t.clock.advance(5_000);
    await runDuePayouts(t.ctx); // A seen in its block
    const [seen] = await t.ctx.db.select().from(payoutTransactions).where(eq(payoutTransactions.payoutId, a));
    expect(seen).toMatchObject({ state: "sent" });
    expect(seen?.includedAt).toBeInstanceOf(Date);
    expect(await usdtBalance(t.devnet, hot.address)).toBe(8n * USDT);
    await adminCall("POST", `/api/v1/admin/payouts/${b}/approve`, {});
    t.clock.advance(1_000);
    const second = await runDuePayouts(t.ctx);
    expect(second.waitingForFloat).toBe(0);
    const [sending] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, b));
    expect(sending).toMatchObject({ status: "sending", lastError: null });
    await expectBothPaidFromTheFloat(a, b, toA, toB);
  });

  it("counts a transaction in a block the sender has not looked at once: the float that covers both sends both at once", async () => {
    await settleFloatTo(20n);
    const [toA, toB] = [(await newAccount()).address, (await newAccount()).address];
    const a = await createPayout("po-unseen-a", "12", toA);
    const b = await createPayout("po-unseen-b", "8", toB);
    await adminCall("POST", `/api/v1/admin/payouts/${a}/approve`, {});
    await runDuePayouts(t.ctx); // A broadcast
    t.mine(1); // A in a block the sender has not looked at: paid in the head balance (8), not solidified
    expect(await usdtBalance(t.devnet, hot.address)).toBe(8n * USDT);
    await adminCall("POST", `/api/v1/admin/payouts/${b}/approve`, {});
    t.clock.advance(1_000); // A's first look is not due yet
    expect(await runDuePayouts(t.ctx)).toMatchObject({ claimed: 1, waitingForFloat: 0 });
    // the solidified balance (20) less A (12) covers B: it goes in this round, not 3 s later
    expect(await rowOfPayout(b)).toMatchObject({ status: "sending", lastError: null, waitReason: null });
    expect((await evaluateAlerts(t.ctx)).fired).not.toContain("payout_float_low");
    await expectBothPaidFromTheFloat(a, b, toA, toB);
  });

  it("checked after the other payout solidified but before the sender looked at it: looks again soon, without the float alert", async () => {
    await settleFloatTo(20n);
    const [toA, toB] = [(await newAccount()).address, (await newAccount()).address];
    const a = await createPayout("po-settle-a", "12", toA);
    const b = await createPayout("po-settle-b", "8", toB);
    await adminCall("POST", `/api/v1/admin/payouts/${a}/approve`, {});
    await runDuePayouts(t.ctx); // A broadcast
    t.mine(SOLIDIFY_AFTER + 1); // A solidified: the solidified balance is 8, A still counted as live
    await adminCall("POST", `/api/v1/admin/payouts/${b}/approve`, {});
    t.clock.advance(1_000); // A's first look is not due yet
    expect(await runDuePayouts(t.ctx)).toMatchObject({ claimed: 1, waitingForFloat: 0 });
    expect(await rowOfPayout(b)).toMatchObject({ status: "approved", lastError: null, waitReason: null });
    expect((await evaluateAlerts(t.ctx)).fired).not.toContain("payout_float_low");
    await expectBothPaidFromTheFloat(a, b, toA, toB);
  });

  it("takes a solidified payout the sender saw in a block as paid only once that block lists it: not after a fork dropped it", async () => {
    await settleFloatTo(20n);
    const [toA, toB] = [(await newAccount()).address, (await newAccount()).address];
    const a = await createPayout("po-dropped-a", "12", toA);
    const b = await createPayout("po-dropped-b", "10", toB);
    await adminCall("POST", `/api/v1/admin/payouts/${a}/approve`, {});
    await runDuePayouts(t.ctx); // A broadcast
    t.mine(1);
    t.clock.advance(5_000);
    await runDuePayouts(t.ctx); // A seen in its block
    const [seen] = await t.ctx.db.select().from(payoutTransactions).where(eq(payoutTransactions.payoutId, a));
    expect(seen?.blockNumber).not.toBeNull();
    await t.devnetPost("/devnet/fork", { depth: 1 }); // the block holding A is gone
    t.mine(SOLIDIFY_AFTER + 1); // the solidified head passes its height; A is in no block
    expect(await usdtBalance(t.devnet, hot.address)).toBe(20n * USDT);
    await adminCall("POST", `/api/v1/admin/payouts/${b}/approve`, {});
    t.clock.advance(1_000); // A's next look is not due yet
    await runDuePayouts(t.ctx);
    // A still owes 12 of the 20: B (10) is not covered, though A's record names a solidified height
    expect(await rowOfPayout(b)).toMatchObject({ status: "approved" });
    expect(
      await t.ctx.db.select().from(payoutTransactions).where(eq(payoutTransactions.payoutId, b)),
    ).toEqual([]);
    await t.devnetPost("/devnet/fund", { address: hot.address, usdt: "1000", solidify: true });
    expect(await sendUntilDone(a)).toMatchObject({ status: "completed", attempts: 1 });
    expect(await sendUntilDone(b)).toMatchObject({ status: "completed", attempts: 1 });
    expect([await usdtBalance(t.devnet, toA), await usdtBalance(t.devnet, toB)]).toEqual([
      12n * USDT,
      10n * USDT,
    ]);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  it("takes a payout seen in a block that solidified as paid before its look records it", async () => {
    await settleFloatTo(20n);
    const [toA, toB] = [(await newAccount()).address, (await newAccount()).address];
    const a = await createPayout("po-listed-a", "12", toA);
    const b = await createPayout("po-listed-b", "8", toB);
    await adminCall("POST", `/api/v1/admin/payouts/${a}/approve`, {});
    await runDuePayouts(t.ctx); // A broadcast
    t.mine(1);
    t.clock.advance(5_000);
    await runDuePayouts(t.ctx); // A seen in its block
    t.mine(SOLIDIFY_AFTER + 1); // A solidified: the solidified balance is 8, A not yet recorded
    await adminCall("POST", `/api/v1/admin/payouts/${b}/approve`, {});
    await runDuePayouts(t.ctx); // the clock has not moved: A's next look is not due, B is
    expect(
      (await t.ctx.db.select().from(payoutTransactions).where(eq(payoutTransactions.payoutId, a)))[0],
    ).toMatchObject({ state: "sent" });
    expect(await rowOfPayout(a)).toMatchObject({ status: "sending" });
    expect(await rowOfPayout(b)).toMatchObject({ status: "sending", lastError: null });
    await expectBothPaidFromTheFloat(a, b, toA, toB);
  });

  it("sends a round's payouts side by side, but never more than the float: the one it does not cover waits", async () => {
    await settleFloatTo(10n, 12n);
    const recipients = [
      (await newAccount()).address,
      (await newAccount()).address,
      (await newAccount()).address,
    ];
    const ids: string[] = [];
    for (const [i, to] of recipients.entries()) {
      ids.push(await createPayout(`po-lanes-${i}`, "4", to));
      await adminCall("POST", `/api/v1/admin/payouts/${ids[i]}/approve`, {});
    }
    const round = await runDuePayouts(t.ctx);
    expect(round).toMatchObject({ claimed: 3, waitingForFloat: 1 });
    const rows = await Promise.all(ids.map(rowOfPayout));
    expect(rows.map((r) => r.status).sort()).toEqual(["approved", "sending", "sending"]);
    const waiting = rows.find((r) => r.status === "approved");
    expect(waiting?.lastError).toMatch(/float/);
    for (const row of rows.filter((r) => r.status === "sending")) {
      expect(await sendUntilDone(row.id)).toMatchObject({ status: "completed" });
    }
    expect((await Promise.all(recipients.map((r) => usdtBalance(t.devnet, r)))).sort()).toEqual([
      0n,
      4n * USDT,
      4n * USDT,
    ]);
    expect(await usdtBalance(t.devnet, hot.address)).toBe(2n * USDT);
    // topped up, the third goes too
    await t.devnetPost("/devnet/fund", { address: hot.address, usdt: "1000", solidify: true });
    t.clock.advance(60_000);
    expect(await sendUntilDone(waiting?.id ?? "")).toMatchObject({ status: "completed" });
    expect(await Promise.all(recipients.map((r) => usdtBalance(t.devnet, r)))).toEqual([
      4n * USDT,
      4n * USDT,
      4n * USDT,
    ]);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});

describe("a round that finds several payouts solidified", () => {
  it("ends them in one batch, each completed once; the same batch again changes nothing", async () => {
    await paidOrder("9", 9n * USDT);
    const recipients = [
      (await newAccount()).address,
      (await newAccount()).address,
      (await newAccount()).address,
    ];
    const ids: string[] = [];
    for (const [i, to] of recipients.entries()) {
      ids.push(await createPayout(`po-batch-${i}`, String(i + 1), to));
      await adminCall("POST", `/api/v1/admin/payouts/${ids[i]}/approve`, {});
    }
    expect((await runDuePayouts(t.ctx)).claimed).toBe(3); // all three broadcast
    t.mine(SOLIDIFY_AFTER + 1);
    t.clock.advance(5_000);
    expect(await runDuePayouts(t.ctx)).toMatchObject({ claimed: 3, completed: 3 });
    const events = async () =>
      queryRows<{ payout_id: string; n: number }>(
        t.ctx.db,
        sql`SELECT payout_id::text AS payout_id, count(*)::int AS n FROM payout_events
            WHERE event_type = 'payout_completed' AND payout_id IN (${sql.join(
              ids.map((id) => sql`${id}::uuid`),
              sql`, `,
            )}) GROUP BY payout_id ORDER BY payout_id`,
      );
    expect((await events()).map((e) => e.n)).toEqual([1, 1, 1]);
    for (const [i, id] of ids.entries()) {
      expect(await rowOfPayout(id)).toMatchObject({ status: "completed", leaseOwner: null });
      expect(await usdtBalance(t.devnet, recipients[i] as string)).toBe(BigInt(i + 1) * USDT);
    }
    // Another worker holding the same receipts (a second finish of the batch) finds them ended.
    const txs = await t.ctx.db.select().from(payoutTransactions);
    const landed = await Promise.all(
      ids.map(async (id) => {
        const tx = txs.find((row) => row.payoutId === id && row.state === "solid");
        const info = await t.ctx.chain.client.getTransactionInfoById(tx?.txHash ?? "", { solidified: true });
        if (!tx || !info) throw new Error(`no solid transaction for ${id}`);
        return { id, txHash: tx.txHash, info, failed: null };
      }),
    );
    const again = await finishPayouts(t.ctx, landed);
    expect([...again.values()]).toEqual(["lost", "lost", "lost"]);
    expect((await events()).map((e) => e.n)).toEqual([1, 1, 1]);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});

describe("one amount to one address, twice", () => {
  it("is two transactions, in one round and across two senders racing on the same head", async () => {
    await paidOrder("8", 8n * USDT);
    const to = (await newAccount()).address;
    const approve = async (externalId: string) => {
      const id = (
        await merchantCall("POST", "/api/v1/payouts", { external_id: externalId, amount: "2", address: to })
      ).json().id as string;
      await adminCall("POST", `/api/v1/admin/payouts/${id}/approve`, {});
      return id;
    };
    // one round, side by side
    const sameRound = [await approve("po-twice-a"), await approve("po-twice-b")];
    expect((await runDuePayouts(t.ctx)).claimed).toBe(2);
    // two senders, one payout each, the same head: the same bytes at first, the second signs again
    const racing = [await approve("po-twice-c"), await approve("po-twice-d")];
    await Promise.all([
      runDuePayouts(t.ctx, { owner: "twice-a", limit: 1 }),
      runDuePayouts(t.ctx, { owner: "twice-b", limit: 1 }),
    ]);
    const ids = [...sameRound, ...racing];
    expect((await Promise.all(ids.map(rowOfPayout))).map((r) => r.status)).toEqual([
      "sending",
      "sending",
      "sending",
      "sending",
    ]);
    for (const id of ids) expect(await sendUntilDone(id)).toMatchObject({ status: "completed", attempts: 1 });
    const txs = await t.ctx.db.select().from(payoutTransactions);
    const hashes = txs.filter((tx) => ids.includes(tx.payoutId)).map((tx) => tx.txHash);
    expect(new Set(hashes).size).toBe(4);
    // the racers signed the same bytes first: the one refused by the primary key signed again, later
    const stamps = txs
      .filter((tx) => racing.includes(tx.payoutId))
      .map((tx) => (tx.signed as { raw_data: { timestamp: number } }).raw_data.timestamp)
      .sort((x, y) => x - y);
    expect((stamps[1] ?? 0) - (stamps[0] ?? 0)).toBeGreaterThanOrEqual(1_000);
    expect(await usdtBalance(t.devnet, to)).toBe(8n * USDT);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});

describe("refunds", () => {
  it("never exceed what the order received less the live refunds; a claim link takes the payer's address once", async () => {
    const order = await paidOrder("10", 12n * USDT);
    const over = await merchantCall("POST", `/api/v1/payments/${order.id}/refunds`, { amount: "12.000001" });
    expect(over.statusCode).toBe(409);
    expect(over.json().code).toBe("REFUND_EXCEEDS_RECEIVED");
    const first = await merchantCall("POST", `/api/v1/payments/${order.id}/refunds`, {
      amount: "2",
      reason: "overpaid",
    });
    expect(first.statusCode).toBe(201);
    const refund = first.json();
    expect(refund).toMatchObject({
      kind: "refund",
      status: "awaiting_address",
      order_id: order.id,
      address: null,
    });
    expect(refund.claim_url).toMatch(/\/refund\/[A-Za-z0-9_-]{40,}$/);
    const second = await merchantCall("POST", `/api/v1/payments/${order.id}/refunds`, {
      amount: "10.000001",
    });
    expect(second.json().code).toBe("REFUND_EXCEEDS_RECEIVED");

    const token = (refund.claim_url as string).split("/refund/")[1];
    const view = await app.inject({ method: "GET", url: `/api/v1/refund-claims/${token}` });
    expect(view.json()).toMatchObject({
      status: "awaiting_address",
      amount: "2.000000",
      claimable: true,
      merchant_name: "Payout Shop",
    });
    const bad = await app.inject({
      method: "POST",
      url: `/api/v1/refund-claims/${token}`,
      payload: { address: hot.address },
    });
    expect(bad.json().code).toBe("ADDRESS_NOT_ALLOWED");
    const payer = (await newAccount()).address;
    const claimed = await app.inject({
      method: "POST",
      url: `/api/v1/refund-claims/${token}`,
      payload: { address: payer },
    });
    expect(claimed.statusCode).toBe(200);
    expect(claimed.json()).toMatchObject({ status: "pending_approval", address: payer, claimable: false });
    const twice = await app.inject({
      method: "POST",
      url: `/api/v1/refund-claims/${token}`,
      payload: { address: (await newAccount()).address },
    });
    expect(twice.statusCode).toBe(409);
    expect(
      (await app.inject({ method: "GET", url: "/api/v1/refund-claims/nope-nope-nope-nope-nope" })).statusCode,
    ).toBe(404);

    await adminCall("POST", `/api/v1/admin/payouts/${refund.id}/approve`, {});
    expect(await sendUntilDone(refund.id)).toMatchObject({ status: "completed" });
    expect(await usdtBalance(t.devnet, payer)).toBe(2n * USDT);
    const after = await app.inject({ method: "GET", url: `/api/v1/refund-claims/${token}` });
    expect(after.json()).toMatchObject({
      status: "completed",
      tx_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  it("created by an operator cannot be approved by the same operator (four eyes); reject and cancel release", async () => {
    const order = await paidOrder("10", 10n * USDT);
    const before = await balance();
    const created = await adminCall("POST", `/api/v1/admin/orders/${order.id}/refunds`, {
      amount: "4",
      address: (await newAccount()).address,
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const self = await adminCall("POST", `/api/v1/admin/payouts/${id}/approve`, {});
    expect(self.statusCode).toBe(403);
    expect(self.json().code).toBe("FOUR_EYES_REQUIRED");
    expect((await t.ctx.db.select().from(payouts).where(eq(payouts.id, id)))[0]?.status).toBe(
      "pending_approval",
    );
    const rejected = await adminCall("POST", `/api/v1/admin/payouts/${id}/reject`, { reason: "duplicate" });
    expect(rejected.json()).toMatchObject({ status: "rejected" });
    expect(await balance()).toEqual(before);
    expect((await adminCall("POST", `/api/v1/admin/payouts/${id}/cancel`, {})).json().code).toBe(
      "INVALID_STATE",
    );

    const other = await merchantCall("POST", `/api/v1/payments/${order.id}/refunds`, {
      amount: "10",
      address: (await newAccount()).address,
    });
    expect(other.statusCode).toBe(201);
    const cancelled = await adminCall("POST", `/api/v1/admin/payouts/${other.json().id}/cancel`, {});
    expect(cancelled.json()).toMatchObject({ status: "cancelled" });
    expect(await balance()).toEqual(before);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});

describe("a fork", () => {
  it("that drops the payout's transaction: the same signed bytes are sent again and land once", async () => {
    const to = (await newAccount()).address;
    const id = (
      await merchantCall("POST", "/api/v1/payouts", { external_id: "po-fork", amount: "3", address: to })
    ).json().id as string;
    await adminCall("POST", `/api/v1/admin/payouts/${id}/approve`, {});
    await runDuePayouts(t.ctx); // signed, stored, broadcast
    t.mine(1); // included, not solid
    expect(await usdtBalance(t.devnet, to)).toBe(3n * USDT);
    await t.devnetPost("/devnet/fork", { depth: 1 }); // the block holding it is gone
    t.clock.advance(60_000);
    const done = await sendUntilDone(id);
    expect(done).toMatchObject({ status: "completed", attempts: 1 });
    expect(await usdtBalance(t.devnet, to)).toBe(3n * USDT);
    const txs = await t.ctx.db.select().from(payoutTransactions).where(eq(payoutTransactions.payoutId, id));
    expect(txs).toHaveLength(1);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
  it("that drops a block the sender saw it in: no lookups until the solidified head reaches that height, then sent again, once", async () => {
    const to = (await newAccount()).address;
    const id = (
      await merchantCall("POST", "/api/v1/payouts", { external_id: "po-fork-seen", amount: "4", address: to })
    ).json().id as string;
    await adminCall("POST", `/api/v1/admin/payouts/${id}/approve`, {});
    await runDuePayouts(t.ctx); // signed, stored, broadcast
    t.mine(1); // included, not solid
    t.clock.advance(5_000);
    await runDuePayouts(t.ctx); // seen in its block
    const [seen] = await t.ctx.db
      .select()
      .from(payoutTransactions)
      .where(eq(payoutTransactions.payoutId, id));
    const head = (await t.ctx.chain.client.getNowBlock()).block_header.raw_data.number ?? 0;
    expect(seen).toMatchObject({ state: "sent", blockNumber: head });
    // While the solidified head is below that block, a round looks nothing up for it.
    const lookups = async () => {
      const info = (await (await fetch(`${t.devnet.url}/devnet/info`)).json()) as {
        requests: { by_path: Record<string, number> };
      };
      return Object.entries(info.requests.by_path)
        .filter(([path]) => path.includes("gettransactioninfobyid"))
        .reduce((sum, [, n]) => sum + n, 0);
    };
    await t.devnetPost("/devnet/requests/reset");
    t.clock.advance(PAYOUT_MAX_WAIT_MS + 1_000);
    expect((await runDuePayouts(t.ctx)).claimed).toBe(1);
    expect(await lookups()).toBe(0);
    expect(await rowOfPayout(id)).toMatchObject({ status: "sending" });
    // The block is dropped; once the solidified chain passes its height, the same bytes go again.
    await t.devnetPost("/devnet/fork", { depth: 1 });
    t.mine(SOLIDIFY_AFTER + 1);
    t.clock.advance(PAYOUT_MAX_WAIT_MS + 1_000);
    await runDuePayouts(t.ctx); // not in the solidified chain, not in a block: broadcast again
    expect(await lookups()).toBeGreaterThan(0);
    const [dropped] = await t.ctx.db
      .select()
      .from(payoutTransactions)
      .where(eq(payoutTransactions.payoutId, id));
    expect(dropped).toMatchObject({ state: "sent", blockNumber: null, includedAt: null });
    const done = await sendUntilDone(id);
    expect(done).toMatchObject({ status: "completed", attempts: 1 });
    expect(await usdtBalance(t.devnet, to)).toBe(4n * USDT);
    const txs = await t.ctx.db.select().from(payoutTransactions).where(eq(payoutTransactions.payoutId, id));
    expect(txs).toHaveLength(1);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});

describe("four eyes with named operators and TOTP", () => {
  it("a refund created by one operator is approved only by another, with a fresh TOTP code; refusals change nothing", async () => {
    const creator = await createOperatorViaApi(
      app,
      cookie,
      {
        email: "creator@example.com",
        role: "support",
      },
      await ownerStepUp(),
    );
    const approver = await createOperatorViaApi(
      app,
      cookie,
      {
        email: "approver@example.com",
        role: "admin",
      },
      await ownerStepUp(),
    );
    const creatorCookie = await operatorCookie(app, creator.email);
    const approverCookie = await operatorCookie(app, approver.email);
    const { secret } = await enrolTotp(app, approverCookie, () => t.clock.now());
    t.clock.advance(31_000); // the enrolment's code is spent; the next step gives a fresh one

    const order = await paidOrder("10", 10n * USDT);
    const payer = (await newAccount()).address;
    const created = await app.inject({
      method: "POST",
      url: `/api/v1/admin/orders/${order.id}/refunds`,
      headers: { cookie: creatorCookie },
      payload: { amount: "10", address: payer, reason: "customer asked" },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const approve = (c: string, payload: Record<string, unknown>) =>
      app.inject({
        method: "POST",
        url: `/api/v1/admin/payouts/${id}/approve`,
        headers: { cookie: c },
        payload,
      });

    const before = await snapshot();
    // support may create refunds but never approve; the owner created nothing here
    expect((await approve(creatorCookie, {})).json().code).toBe("ADMIN_FORBIDDEN");
    expect((await approve(approverCookie, {})).json().code).toBe("TOTP_REQUIRED");
    expect((await approve(approverCookie, { totp_code: "000000" })).json().code).toBe("TOTP_INVALID");
    expect(await snapshot()).toEqual(before);
    expect((await rowOfPayout(id)).status).toBe("pending_approval");

    const code = totpAt(secret, t.clock.now());
    const ok = await approve(approverCookie, { totp_code: code });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ status: "approved", decided_by: expect.stringContaining("approver") });
    // the same code again is refused (used once)
    const again = await paidOrder("2", 2n * USDT);
    const second = await merchantCall("POST", `/api/v1/payments/${again.id}/refunds`, {
      amount: "1",
      address: (await newAccount()).address,
    });
    const reused = await app.inject({
      method: "POST",
      url: `/api/v1/admin/payouts/${second.json().id}/approve`,
      headers: { cookie: approverCookie },
      payload: { totp_code: code },
    });
    expect(reused.json().code).toBe("TOTP_INVALID");

    // an operator never approves what they created, whatever their role
    const selfMade = await app.inject({
      method: "POST",
      url: `/api/v1/admin/orders/${again.id}/refunds`,
      headers: { cookie: approverCookie },
      payload: { amount: "0.5", address: (await newAccount()).address },
    });
    expect(selfMade.statusCode, selfMade.body).toBe(201);
    const selfApproval = await app.inject({
      method: "POST",
      url: `/api/v1/admin/payouts/${selfMade.json().id}/approve`,
      headers: { cookie: approverCookie },
      payload: { totp_code: totpAt(secret, new Date(t.clock.now().getTime() + 31_000)) },
    });
    expect(selfApproval.statusCode).toBe(403);
    expect(selfApproval.json().code).toBe("FOUR_EYES_REQUIRED");

    expect(await sendUntilDone(id)).toMatchObject({ status: "completed" });
    expect(await usdtBalance(t.devnet, payer)).toBe(10n * USDT);
    const audit = await queryRows<{ action: string; actor_label: string }>(
      t.ctx.db,
      sql`SELECT action, actor_label FROM audit_log WHERE target_id = ${id} ORDER BY seq`,
    );
    expect(audit.map((a) => a.action)).toEqual(["refund.create", "refund.approve"]);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});

async function rowOfPayout(id: string) {
  const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
  if (!row) throw new Error(`payout ${id} not found`);
  return row;
}
