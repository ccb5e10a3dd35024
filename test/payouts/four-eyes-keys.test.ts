/**
 * Four eyes through a merchant key (DESIGN.md 14): no single operator can move money out alone. An
 * operator who created or rotated the merchant API key a payout was created with is refused as its
 * approver (403 FOUR_EYES_REQUIRED) and a second operator approves it; a key the merchant rotated
 * itself (POST /api/v1/merchant/rotate-api-key) has no issuer. Through the real HTTP API.
 */
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { merchants, payouts } from "../../src/db/schema.js";
import { creditMerchant } from "../../src/ledger/post-ledger.js";
import { adminCookie, createMerchantViaApi } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { createOperatorViaApi, OPERATOR_PASSWORD, operatorCookie } from "../helpers/operators.js";
import { approvalFactors } from "../helpers/software-passkey.js";

const USDT = 1_000_000n;
const RECIPIENT = "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8";
let t: TestApp;
let owner: string;
let second: string;
let factors: ReturnType<typeof approvalFactors>;

beforeAll(async () => {
  t = await createTestApp();
  owner = await adminCookie(t.app);
  await createOperatorViaApi(t.app, owner, { email: "second@example.com", role: "admin" });
  second = await operatorCookie(t.app, "second@example.com");
  factors = approvalFactors(t.app, t.ctx.config.publicBaseUrl);
  await factors.enrol(owner, TEST_ADMIN_PASSWORD);
  await factors.enrol(second, OPERATOR_PASSWORD);
});
afterAll(() => t.close());

/** Approvals carry the operator's passkey: every approver gives a second factor. */
const call = async (
  cookie: string,
  method: "GET" | "POST",
  url: string,
  payload?: Record<string, unknown>,
) => {
  const body = /\/(approve|reject|rotate-api-key)$/.test(url)
    ? { ...payload, ...(await factors.factor(cookie)) }
    : payload;
  return t.app.inject({ method, url, headers: { cookie }, ...(body === undefined ? {} : { payload: body }) });
};
const withKey = (apiKey: string, url: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method: "POST", url, headers: { "x-api-key": apiKey }, ...(payload ? { payload } : {}) });

/** A merchant created by `cookie`'s operator, with 100 USDT to spend. */
async function fundedMerchant(cookie: string): Promise<{ id: string; apiKey: string }> {
  const created = await createMerchantViaApi(t.app, cookie, {
    name: `Shop ${randomBytes(3).toString("hex")}`,
    webhook_secret: "whsec-test-0123456789",
  });
  await creditMerchant(t.ctx.db, {
    merchantId: created.id,
    currency: "USDT",
    amount: 100n * USDT,
    kind: "test_credit",
    refType: "test",
    refId: created.id,
  });
  return { id: created.id, apiKey: created.api_key };
}

async function payoutWith(apiKey: string): Promise<string> {
  const reply = await withKey(apiKey, "/api/v1/payouts", {
    external_id: `p-${randomBytes(4).toString("hex")}`,
    amount: "5",
    address: RECIPIENT,
  });
  expect(reply.statusCode).toBe(201);
  return reply.json().id as string;
}

async function statusOf(id: string) {
  return (await t.ctx.db.select().from(payouts).where(eq(payouts.id, id)))[0]?.status;
}

describe("four eyes through a merchant key", () => {
  it("the operator who rotated the key cannot approve what it created; a second operator can", async () => {
    const shop = await fundedMerchant(second);
    const rotated = await call(owner, "POST", `/api/v1/admin/merchants/${shop.id}/rotate-api-key`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const id = await payoutWith(rotated.json().api_key as string);
    const alone = await call(owner, "POST", `/api/v1/admin/payouts/${id}/approve`, {});
    expect(alone.statusCode).toBe(403);
    expect(alone.json()).toMatchObject({ code: "FOUR_EYES_REQUIRED" });
    expect(await statusOf(id)).toBe("pending_approval");
    const other = await call(second, "POST", `/api/v1/admin/payouts/${id}/approve`, {});
    expect(other.statusCode).toBe(200);
    expect(await statusOf(id)).toBe("approved");
  });

  it("the operator who created the merchant (and its first key) cannot approve its payouts", async () => {
    const shop = await fundedMerchant(owner);
    const id = await payoutWith(shop.apiKey);
    const alone = await call(owner, "POST", `/api/v1/admin/payouts/${id}/approve`, {});
    expect(alone.json()).toMatchObject({ code: "FOUR_EYES_REQUIRED" });
    const byOther = await call(second, "POST", `/api/v1/admin/payouts/${id}/approve`, {});
    expect(byOther.statusCode, byOther.body).toBe(200);
  });

  it("a key the merchant rotated itself has no issuer: the old key stops at once, and the earlier issuer may approve", async () => {
    const shop = await fundedMerchant(owner);
    const own = await withKey(shop.apiKey, "/api/v1/merchant/rotate-api-key");
    expect(own.statusCode).toBe(200);
    const { api_key: key, api_key_prefix: prefix } = own.json() as {
      api_key: string;
      api_key_prefix: string;
    };
    expect(key.startsWith(prefix)).toBe(true);
    expect(key).not.toBe(shop.apiKey);
    const old = await t.app.inject({
      method: "GET",
      url: "/api/v1/merchant/me",
      headers: { "x-api-key": shop.apiKey },
    });
    expect(old.statusCode).toBe(401);
    const [row] = await t.ctx.db.select().from(merchants).where(eq(merchants.id, shop.id));
    expect(row).toMatchObject({ apiKeyIssuedBy: null, apiKeyPrefix: prefix });
    const id = await payoutWith(key);
    expect((await call(owner, "POST", `/api/v1/admin/payouts/${id}/approve`, {})).statusCode).toBe(200);
  });
});
