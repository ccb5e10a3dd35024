/**
 * Refunding a stray transfer (DESIGN.md 13 and 14) on the devnet over HTTP: a transfer to a pool
 * address no order holds is recorded as a stray; a support operator refunds it
 * (POST /admin/stray-transfers/:id/refunds), which resolves the stray `refunded` and puts it on the
 * house account's books; refusals (over the stray's amount, another resolution, the creator
 * approving, a missing TOTP code) change nothing; a second operator approves with a fresh TOTP
 * code; the hot wallet sends it; the recipient's balance rises by exactly the amount; check-ledger
 * and check-rollups are clean. PGlite or PostgreSQL (TEST_DATABASE_URL).
 */
import { eq, sql } from "drizzle-orm";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payouts, strayTransfers } from "../../src/db/schema.js";
import { queryRows } from "../../src/db/query-rows.js";
import { checkLedger } from "../../src/ledger/check-ledger.js";
import { getMerchantBalance } from "../../src/ledger/post-ledger.js";
import { HOUSE_MERCHANT_ID } from "../../src/payouts/house-account.js";
import { runDuePayouts } from "../../src/payouts/send-payouts.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { createOperatorViaApi, enrolTotp, operatorCookie, totpAt } from "../helpers/operators.js";
import { SOLIDIFY_AFTER } from "../chain/helpers.js";
import {
  payAndConfirm,
  spareAddress,
  startStrayTest,
  straysTo,
  USDT,
  type StrayTest,
} from "../strays/helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

let s: StrayTest;
let supportCookie: string;
let approverCookie: string;
let secret: string;

beforeAll(async () => {
  s = await startStrayTest({ SWEEP_ENABLED: "false" });
  const hot = s.t.config.hotWalletPrivateKey;
  if (!hot) throw new Error("no hot wallet");
  const hotAddress = TronWeb.address.fromPrivateKey(hot) as string;
  await s.t.devnetPost("/devnet/fund", { address: hotAddress, usdt: "100", solidify: true });
  await createOperatorViaApi(s.app, s.cookie, { email: "support@example.com", role: "support" });
  await createOperatorViaApi(s.app, s.cookie, { email: "approver@example.com", role: "admin" });
  supportCookie = await operatorCookie(s.app, "support@example.com");
  approverCookie = await operatorCookie(s.app, "approver@example.com");
  ({ secret } = await enrolTotp(s.app, approverCookie, () => s.t.clock.now()));
  s.t.clock.advance(31_000); // the enrolment's code is spent
}, 180_000);
afterAll(() => s?.close());

const refund = (id: string, cookie: string, payload: Record<string, unknown>) =>
  s.app.inject({
    method: "POST",
    url: `/api/v1/admin/stray-transfers/${id}/refunds`,
    headers: { cookie },
    payload,
  });

async function books() {
  const [counts] = await queryRows<{ p: string; l: string; a: string }>(
    s.t.ctx.db,
    sql`SELECT (SELECT count(*) FROM payouts)::text AS p, (SELECT count(*) FROM ledger_transactions)::text AS l,
               (SELECT count(*) FROM audit_log)::text AS a`,
  );
  const strays = await s.t.ctx.db
    .select({ id: strayTransfers.id, resolution: strayTransfers.resolution })
    .from(strayTransfers);
  return { counts, strays };
}

describe("refund of a stray transfer", () => {
  it("resolves the stray, is approved by a second operator with TOTP, and pays exactly the amount once", async () => {
    const address = await spareAddress(s.t);
    await payAndConfirm(s.t, address, 7n * USDT);
    const [stray] = await straysTo(s.t, address);
    if (!stray) throw new Error("the stray transfer was not recorded");
    expect(stray).toMatchObject({ status: "confirmed", resolution: null });
    const payer = (await TronWeb.createAccount()).address.base58 as string;

    // Refusals change nothing: over the amount, no reason, a bad address, a viewer-less unknown id.
    const before = await books();
    const over = await refund(stray.id, supportCookie, { amount: "7.000001", address: payer, reason: "r" });
    expect([over.statusCode, over.json().code]).toEqual([409, "REFUND_EXCEEDS_RECEIVED"]);
    const noReason = await refund(stray.id, supportCookie, { address: payer });
    expect(noReason.statusCode).toBe(400);
    const badAddress = await refund(stray.id, supportCookie, { address: "Tnope", reason: "r" });
    expect([badAddress.statusCode, badAddress.json().code]).toEqual([400, "INVALID_ADDRESS"]);
    const unknown = await refund("0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15", supportCookie, { reason: "r" });
    expect(unknown.statusCode).toBe(404);
    expect(await books()).toEqual(before);

    // 5 of the 7 to the payer's address (support may create refunds).
    const created = await refund(stray.id, supportCookie, {
      amount: "5",
      address: payer,
      reason: "sent to the wrong address; the payer asked",
    });
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      kind: "refund",
      status: "pending_approval",
      stray_transfer_id: stray.id,
      order_id: null,
      merchant_id: HOUSE_MERCHANT_ID,
      amount: "5.000000",
      address: payer,
      claim_url: null,
    });
    const [resolved] = await straysTo(s.t, address);
    expect(resolved).toMatchObject({ resolution: "refunded" });
    expect(await getMerchantBalance(s.t.ctx.db, HOUSE_MERCHANT_ID)).toEqual({
      available: 2n * USDT,
      reserved: 5n * USDT,
    });
    expect(await checkLedger(s.t.ctx.db)).toEqual([]);

    // At most what is left (2), and the rest by default; a dismissal is refused now.
    const tooMuch = await refund(stray.id, supportCookie, { amount: "2.5", reason: "rest" });
    expect([tooMuch.statusCode, tooMuch.json().code]).toEqual([409, "REFUND_EXCEEDS_RECEIVED"]);
    const dismiss = await s.app.inject({
      method: "POST",
      url: `/api/v1/admin/stray-transfers/${stray.id}/dismiss`,
      headers: { cookie: s.cookie },
      payload: { reason: "nothing owed" },
    });
    expect([dismiss.statusCode, dismiss.json().code]).toEqual([409, "INVALID_STATE"]);
    const rest = await refund(stray.id, s.cookie, { reason: "the rest, by claim link" });
    expect(rest.statusCode, rest.body).toBe(201);
    expect(rest.json()).toMatchObject({ amount: "2.000000", status: "awaiting_address" });
    expect(rest.json().claim_url).toMatch(/\/refund\//);
    const cancelled = await s.app.inject({
      method: "POST",
      url: `/api/v1/admin/payouts/${rest.json().id}/cancel`,
      headers: { cookie: s.cookie },
      payload: { reason: "the payer wants one transfer" },
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(await getMerchantBalance(s.t.ctx.db, HOUSE_MERCHANT_ID)).toEqual({
      available: 2n * USDT,
      reserved: 5n * USDT,
    });

    // Four eyes: the creator may not approve (support cannot at all); the approver needs a code.
    const approve = (cookie: string, payload: Record<string, unknown>) =>
      s.app.inject({
        method: "POST",
        url: `/api/v1/admin/payouts/${body.id}/approve`,
        headers: { cookie },
        payload,
      });
    const mid = await books();
    expect((await approve(supportCookie, {})).json().code).toBe("ADMIN_FORBIDDEN");
    expect((await approve(approverCookie, {})).json().code).toBe("TOTP_REQUIRED");
    expect(await books()).toEqual(mid);
    const ok = await approve(approverCookie, { totp_code: totpAt(secret, s.t.clock.now()) });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ status: "approved" });

    let row;
    for (let i = 0; i < 20; i++) {
      await runDuePayouts(s.t.ctx);
      s.t.devnet.mine(SOLIDIFY_AFTER + 1);
      s.t.clock.advance(60_000);
      [row] = await s.t.ctx.db.select().from(payouts).where(eq(payouts.id, body.id));
      if (row?.status === "completed" || row?.status === "failed") break;
    }
    expect(row, `${row?.status} ${row?.lastError}`).toMatchObject({ status: "completed" });
    expect(await usdtBalance(s.t.devnet, payer)).toBe(5n * USDT);
    expect(await getMerchantBalance(s.t.ctx.db, HOUSE_MERCHANT_ID)).toEqual({
      available: 2n * USDT,
      reserved: 0n,
    });
    expect(await checkLedger(s.t.ctx.db)).toEqual([]);
    expect(await checkRollups(s.t.ctx.db)).toEqual([]);

    const audit = await queryRows<{ action: string; actor_label: string; after: Record<string, unknown> }>(
      s.t.ctx.db,
      sql`SELECT action, actor_label, after FROM audit_log WHERE target_id = ${body.id} ORDER BY seq`,
    );
    expect(audit.map((a) => a.action)).toEqual(["refund.create", "refund.approve"]);
    expect(audit[0]?.actor_label).toContain("support");
    expect(audit[0]?.after).toMatchObject({ stray_transfer_id: stray.id, stray_resolution: "refunded" });
    // The house account cannot act through the merchant API.
    const house = await s.app.inject({
      method: "GET",
      url: "/api/v1/merchant/me",
      headers: { "x-api-key": "house" },
    });
    expect(house.statusCode).toBe(401);
  }, 300_000);
});
