/**
 * The admin merchant detail's balance_breakdown: the merchant's ledger summed by what moved the
 * money (payments, deposits, refunds sent, pending), adding up to the balance (merchant_balances,
 * kept apart by the ledger's writer) to the micro-unit.
 */
import { eq } from "drizzle-orm";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payouts } from "../../src/db/schema.js";
import { creditMerchant } from "../../src/ledger/post-ledger.js";
import { parseAmount } from "../../src/money.js";
import { transitionPayout } from "../../src/payouts/transition-payout.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { confirmPayment, createMerchant, createOrder, type MerchantFixture } from "../webhooks/fixtures.js";

let t: TestApp;
let cookie: string;
let merchant: MerchantFixture;

const admin = (method: "GET" | "POST", url: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });

/** A confirmed payment and the confirmer's credit of it (the fixture's confirmation leaves it out). */
async function paidOrder(amount: bigint): Promise<string> {
  const order = await createOrder(t.ctx, merchant, {
    callbackUrl: "https://merchant.example.com/hook",
    amountExpected: amount,
  });
  await confirmPayment(t.ctx, order.id, amount);
  await creditMerchant(t.ctx.db, {
    merchantId: merchant.id,
    currency: "USDT",
    amount,
    kind: "payment_confirmed",
    refType: "order",
    refId: order.id,
    at: t.clock.now(),
  });
  return order.id;
}

async function refund(orderId: string, amount: string): Promise<string> {
  const address = (await TronWeb.createAccount()).address.base58 as string;
  const reply = await admin("POST", `/api/v1/admin/orders/${orderId}/refunds`, {
    amount,
    address,
    reason: "customer returned it",
  });
  expect(reply.statusCode, reply.body).toBe(201);
  return reply.json().id as string;
}

/** Walks a refund to `completed` through the payout transition table (the sender's part). */
async function send(id: string) {
  for (const [to, event] of [
    ["approved", "approved"],
    ["sending", "sending"],
    ["completed", "completed"],
  ] as const) {
    const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
    if (row!.status === to) continue;
    await t.ctx.db.transaction((tx) => transitionPayout(t.ctx, tx, { payout: row!, to, event }));
  }
}

beforeAll(async () => {
  t = await createTestApp();
  cookie = await adminCookie(t.app);
  merchant = await createMerchant(t.ctx);
});
afterAll(async () => {
  await t.close();
});

describe("admin merchant detail: balance_breakdown", () => {
  it("adds payments, deposits, refunds sent and pending up to the balance", async () => {
    const first = await paidOrder(10_000_000n);
    await paidOrder(2_500_000n);
    await creditMerchant(t.ctx.db, {
      merchantId: merchant.id,
      currency: "USDT",
      amount: 3_000_000n,
      kind: "deposit_confirmed",
      refType: "deposit",
      refId: "deposit-1",
      at: t.clock.now(),
    });
    await send(await refund(first, "2"));
    await refund(first, "1.5"); // reserved, waiting for approval or sending
    const released = await refund(first, "0.25");
    const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, released));
    await t.ctx.db.transaction((tx) =>
      transitionPayout(t.ctx, tx, { payout: row!, to: "cancelled", event: "cancelled" }),
    );

    const reply = await admin("GET", `/api/v1/admin/merchants/${merchant.id}`);
    expect(reply.statusCode, reply.body).toBe(200);
    const body = reply.json();
    // 12.5 paid + 3 deposited - 2 refunded = 13.5 in the merchant's accounts; 1.5 of it reserved.
    expect(body.balance).toEqual({ available: "12.000000", reserved: "1.500000" });
    expect(body.balance_breakdown).toEqual({
      payments: "12.500000",
      deposits: "3.000000",
      stray_transfers: "0.000000",
      refunds: "-2.000000",
      payouts: "0.000000",
      adjustments: "0.000000",
      pending: "-1.500000",
      available: "12.000000",
    });
    const lines = Object.entries(body.balance_breakdown as Record<string, string>)
      .filter(([line]) => line !== "available")
      .map(([, amount]) => parseSigned(amount));
    expect(lines.reduce((a, b) => a + b, 0n)).toBe(parseAmount(body.balance.available));
  });

  it("is all zeros for a merchant without ledger entries", async () => {
    const fresh = await createMerchant(t.ctx);
    const body = (await admin("GET", `/api/v1/admin/merchants/${fresh.id}`)).json();
    expect(Object.values(body.balance_breakdown)).toEqual(Array(8).fill("0.000000"));
  });
});

function parseSigned(amount: string): bigint {
  return amount.startsWith("-") ? -parseAmount(amount.slice(1))! : parseAmount(amount)!;
}
