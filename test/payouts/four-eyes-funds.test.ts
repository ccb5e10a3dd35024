/**
 * Four eyes through attached funds and the house account (DESIGN.md 14), on the devnet over HTTP:
 * the operator who attached a stray transfer to a merchant's order cannot, for 24 hours, approve a
 * refund of that order (the funds it spends); the operator who rotates
 * the house account's key cannot approve a payout of the strays' leftover made with it. A second
 * operator approves each.
 */
import { eq } from "drizzle-orm";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payouts } from "../../src/db/schema.js";
import { getMerchantBalance } from "../../src/ledger/post-ledger.js";
import { HOUSE_MERCHANT_ID } from "../../src/payouts/house-account.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { createOperatorViaApi, OPERATOR_PASSWORD, operatorCookie } from "../helpers/operators.js";
import { approvalFactors } from "../helpers/software-passkey.js";
import { confirmedStray, startStrayTest, USDT, type StrayTest } from "../strays/helpers.js";

let s: StrayTest;
let second: string;
let third: string;
let factors: ReturnType<typeof approvalFactors>;

beforeAll(async () => {
  s = await startStrayTest({ SWEEP_ENABLED: "false" });
  await createOperatorViaApi(s.app, s.cookie, { email: "second@example.com", role: "admin" });
  await createOperatorViaApi(s.app, s.cookie, { email: "third@example.com", role: "admin" });
  second = await operatorCookie(s.app, "second@example.com");
  third = await operatorCookie(s.app, "third@example.com");
  factors = approvalFactors(s.app, s.t.ctx.config.publicBaseUrl);
  await factors.enrol(s.cookie, TEST_ADMIN_PASSWORD);
  await factors.enrol(second, OPERATOR_PASSWORD);
  await factors.enrol(third, OPERATOR_PASSWORD);
}, 180_000);
afterAll(() => s?.close());

/** Approvals (and key rotations) carry the operator's passkey: every approver gives a second factor. */
const call = async (
  cookie: string,
  method: "POST" | "PUT",
  url: string,
  payload: Record<string, unknown> = {},
) => {
  const body = /\/(approve|reject|rotate-api-key)$/.test(url)
    ? { ...payload, ...(await factors.factor(cookie)) }
    : payload;
  return s.app.inject({ method, url, headers: { cookie }, payload: body });
};
const approve = (cookie: string, id: string) => call(cookie, "POST", `/api/v1/admin/payouts/${id}/approve`);
const statusOf = async (id: string) =>
  (await s.t.ctx.db.select().from(payouts).where(eq(payouts.id, id)))[0]?.status;

/** A confirmed stray transfer of `micro` to a pool address no order holds. */
const stray = (micro: bigint) => confirmedStray(s.t, micro);
const payer = async () => (await TronWeb.createAccount()).address.base58 as string;

describe("four eyes through attached funds", () => {
  it("the operator who attached a stray cannot approve a refund of that order that another operator created", async () => {
    const { txHash } = await stray(6n * USDT);
    const order = await s.t.order("6");
    const attach = await call(s.cookie, "POST", `/api/v1/admin/orders/${order.id}/attach-transfer`, {
      tx_hash: txHash,
      reason: "the payer used an old address",
    });
    expect(attach.statusCode, attach.body).toBe(200);
    // A second operator creates the refund: the owner did not create it, but attached what it spends.
    const refund = await call(second, "POST", `/api/v1/admin/orders/${order.id}/refunds`, {
      amount: "6",
      address: await payer(),
      reason: "the customer cancelled",
    });
    expect(refund.statusCode, refund.body).toBe(201);
    const id = refund.json().id as string;
    const alone = await approve(s.cookie, id);
    expect([alone.statusCode, alone.json().code]).toEqual([403, "FOUR_EYES_REQUIRED"]);
    expect(await statusOf(id)).toBe("pending_approval");
    // A third operator, who neither created nor attached anything, approves it.
    expect((await approve(third, id)).statusCode).toBe(200);
    expect(await statusOf(id)).toBe("approved");
  });

  it("bars the attacher for 24 hours only", async () => {
    const { txHash } = await stray(4n * USDT);
    const order = await s.t.order("4");
    const attach = await call(second, "POST", `/api/v1/admin/orders/${order.id}/attach-transfer`, {
      tx_hash: txHash,
      reason: "the payer used an old address",
    });
    expect(attach.statusCode, attach.body).toBe(200);
    const refund = await call(s.cookie, "POST", `/api/v1/admin/orders/${order.id}/refunds`, {
      amount: "1",
      address: await payer(),
      reason: "partial refund",
    });
    const id = refund.json().id as string;
    expect((await approve(second, id)).json()).toMatchObject({ code: "FOUR_EYES_REQUIRED" });
    s.t.clock.advance(24 * 3600 * 1000 + 1000);
    // The sessions have expired by now: every operator signs in again, with their passkey.
    s.cookie = await factors.login(s.cookie, { password: TEST_ADMIN_PASSWORD });
    second = await factors.login(second, { email: "second@example.com", password: OPERATOR_PASSWORD });
    third = await factors.login(third, { email: "third@example.com", password: OPERATOR_PASSWORD });
    const later = await approve(second, id);
    expect(later.statusCode, later.body).toBe(200);
  });
});

describe("four eyes through the house account", () => {
  it("the operator who rotates the house account's key cannot approve a payout of the strays' leftover made with it", async () => {
    const { id: strayId } = await stray(5n * USDT);
    const first = await call(second, "POST", `/api/v1/admin/stray-transfers/${strayId}/refunds`, {
      amount: "2",
      address: await payer(),
      reason: "part back to the payer",
    });
    expect(first.statusCode, first.body).toBe(201);
    // The stray refund's creator is refused as its approver; another operator approves.
    expect((await approve(second, first.json().id as string)).json()).toMatchObject({
      code: "FOUR_EYES_REQUIRED",
    });
    expect((await approve(third, first.json().id as string)).statusCode).toBe(200);
    expect((await getMerchantBalance(s.t.ctx.db, HOUSE_MERCHANT_ID)).available).toBeGreaterThanOrEqual(
      3n * USDT,
    );

    // The owner rotates the house account's key, enables it and pays the leftover out with it.
    const rotated = await call(
      s.cookie,
      "POST",
      `/api/v1/admin/merchants/${HOUSE_MERCHANT_ID}/rotate-api-key`,
    );
    expect(rotated.statusCode, rotated.body).toBe(200);
    // Enabling the house account is a step-up action too.
    const enabled = await call(s.cookie, "PUT", `/api/v1/admin/merchants/${HOUSE_MERCHANT_ID}`, {
      is_active: true,
      ...(await factors.factor(s.cookie)),
    });
    expect(enabled.statusCode, enabled.body).toBe(200);
    const payout = await s.app.inject({
      method: "POST",
      url: "/api/v1/payouts",
      headers: { "x-api-key": rotated.json().api_key as string },
      payload: { external_id: "house-leftover", amount: "3", address: await payer() },
    });
    expect(payout.statusCode, payout.body).toBe(201);
    const id = payout.json().id as string;
    const alone = await approve(s.cookie, id);
    expect([alone.statusCode, alone.json().code]).toEqual([403, "FOUR_EYES_REQUIRED"]);
    expect(await statusOf(id)).toBe("pending_approval");
    expect((await approve(third, id)).statusCode).toBe(200);
  });
});
