/**
 * The admin payout detail says what the operator may do and why not (actions), shows its latest
 * webhook delivery and its claim link's expiry; a refund waiting for its payer's address gets a
 * fresh claim link (the old one stops working, the expiry moves 7 days from now, an audit row
 * without the token), and nothing else does.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog } from "../../src/db/schema.js";
import { creditMerchant } from "../../src/ledger/post-ledger.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { confirmPayment, createMerchant, createOrder } from "../webhooks/fixtures.js";

let t: TestApp;
let cookie: string;
let refundId: string;
let firstClaimUrl: string;

const admin = (method: "GET" | "POST", url: string, payload?: Record<string, unknown>) =>
  payload === undefined
    ? t.app.inject({ method, url, headers: { cookie } })
    : t.app.inject({ method, url, headers: { cookie }, payload });

beforeAll(async () => {
  t = await createTestApp();
  cookie = await adminCookie(t.app);
  const merchant = await createMerchant(t.ctx);
  const order = await createOrder(t.ctx, merchant, { callbackUrl: "https://merchant.example.com/hook" });
  await confirmPayment(t.ctx, order.id, order.amountExpected);
  // The confirmer's credit, which the fixture's confirmation leaves out (check-ledger still holds).
  await creditMerchant(t.ctx.db, {
    merchantId: merchant.id,
    currency: "USDT",
    amount: order.amountExpected,
    kind: "payment_confirmed",
    refType: "order",
    refId: order.id,
    at: t.clock.now(),
  });
  const refund = await admin("POST", `/api/v1/admin/orders/${order.id}/refunds`, {
    amount: "2",
    reason: "customer returned the mug",
  });
  expect(refund.statusCode, refund.body).toBe(201);
  refundId = refund.json().id;
  firstClaimUrl = refund.json().claim_url;
  expect(firstClaimUrl).toMatch(/\/refund\//);
});
afterAll(async () => {
  await t.close();
});

type Action = { action: string; allowed: boolean; reason: string | null };
const byAction = (actions: Action[]) => Object.fromEntries(actions.map((a) => [a.action, a]));

describe("admin payout detail: actions that follow state", () => {
  it("a refund waiting for its payer: reject, cancel and a new claim link; not approve, not retry webhook", async () => {
    const res = await admin("GET", `/api/v1/admin/payouts/${refundId}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.payout.status).toBe("awaiting_address");
    expect(body.webhook).toBeNull();
    expect(new Date(body.claim_expires_at).getTime()).toBe(t.clock.now().getTime() + 7 * 24 * 3600 * 1000);
    const actions = byAction(body.actions);
    expect(actions.approve).toEqual({
      action: "approve",
      allowed: false,
      reason: "It waits for the payer's address: it can be approved once the payer gives one.",
    });
    expect(actions.reject!.allowed).toBe(true);
    expect(actions.cancel!.allowed).toBe(true);
    expect(actions.reissue_claim_link).toEqual({ action: "reissue_claim_link", allowed: true, reason: null });
    expect(actions.retry_webhook!.allowed).toBe(false);
    expect(actions.retry_webhook!.reason).toMatch(/^No webhook/);
  });

  it("re-issues the claim link: the old link stops working, the new one works for 7 more days, audited without the token", async () => {
    t.clock.advance(3 * 24 * 3600 * 1000);
    cookie = await adminCookie(t.app); // the session of 3 days ago has ended
    const res = await admin("POST", `/api/v1/admin/payouts/${refundId}/claim-link`);
    expect(res.statusCode, res.body).toBe(200);
    const { claim_url, claim_expires_at } = res.json();
    expect(claim_url).not.toBe(firstClaimUrl);
    expect(new Date(claim_expires_at).getTime()).toBe(t.clock.now().getTime() + 7 * 24 * 3600 * 1000);
    const claimOf = (url: string) =>
      t.app.inject({ method: "GET", url: `/api/v1/refund-claims/${new URL(url).pathname.split("/").pop()}` });
    expect((await claimOf(firstClaimUrl)).statusCode).toBe(404);
    const fresh = await claimOf(claim_url);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json()).toMatchObject({ claimable: true, claim_expires_at });
    const detail = (await admin("GET", `/api/v1/admin/payouts/${refundId}`)).json();
    expect(detail.claim_expires_at).toBe(claim_expires_at);
    const rows = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "refund.claim_link_reissue"), eq(auditLog.targetId, refundId)));
    expect(rows).toHaveLength(1);
    const token = new URL(claim_url).pathname.split("/").pop()!;
    expect(JSON.stringify(rows[0])).not.toContain(token);
    expect(JSON.stringify(rows[0])).toContain(claim_expires_at);
  });

  it("refuses a new claim link once the payer gave an address, and for an unknown id", async () => {
    const detail = (await admin("GET", `/api/v1/admin/payouts/${refundId}`)).json();
    const cancelled = await admin("POST", `/api/v1/admin/payouts/${refundId}/cancel`, {
      reason: "duplicate",
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const after = await admin("GET", `/api/v1/admin/payouts/${refundId}`);
    const actions = byAction(after.json().actions);
    expect(actions.reissue_claim_link!.allowed).toBe(false);
    expect(actions.cancel!.reason).toBe("Not possible: it was cancelled.");
    expect(after.json().claim_expires_at).toBeNull();
    expect(detail.claim_expires_at).not.toBeNull();
    const refused = await admin("POST", `/api/v1/admin/payouts/${refundId}/claim-link`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: "INVALID_STATE" });
    const unknown = await admin(
      "POST",
      "/api/v1/admin/payouts/00000000-0000-4000-8000-000000000000/claim-link",
    );
    expect(unknown.statusCode).toBe(404);
  });
});
