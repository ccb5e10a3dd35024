/**
 * The daily auto-approve limit holds under concurrency (DESIGN.md 14, Approval): twelve payouts
 * created at once through the merchant API each fit PAYOUT_AUTO_APPROVE_USDT, but only as many as
 * PAYOUT_DAILY_LIMIT_USDT allows are approved at creation; the rest wait for an operator. On
 * PostgreSQL (TEST_DATABASE_URL) the creations run on separate connections at once; on PGlite they
 * run one after another and the sum holds the same way. A refund or payout an operator creates
 * never auto-approves, however small.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { creditMerchant, getMerchantBalance } from "../../src/ledger/post-ledger.js";
import { createPayout } from "../../src/payouts/create-payout.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";

const USDT = 1_000_000n;
let t: TestApp;
let shop: TestMerchant;
const RECIPIENT = "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8";

beforeAll(async () => {
  t = await createTestApp({ env: { PAYOUT_AUTO_APPROVE_USDT: "10", PAYOUT_DAILY_LIMIT_USDT: "50" } });
  shop = await addMerchant(t.ctx);
  await creditMerchant(t.ctx.db, {
    merchantId: shop.id,
    currency: "USDT",
    amount: 1000n * USDT,
    kind: "test_credit",
    refType: "test",
    refId: shop.id,
  });
});
afterAll(() => t.close());

async function approvedToday(merchantId: string): Promise<{ n: number; total: bigint }> {
  const [row] = await queryRows<{ n: number; total: string }>(
    t.ctx.db,
    sql`SELECT count(*)::int AS n, coalesce(sum(amount), 0)::text AS total FROM payouts
        WHERE merchant_id = ${merchantId}::uuid AND auto_approved`,
  );
  return { n: row?.n ?? 0, total: BigInt(row?.total ?? "0") };
}

describe("the daily auto-approve limit", () => {
  it("twelve concurrent 10 USDT payouts under a 50 USDT daily limit: exactly five auto-approve", async () => {
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.app.inject({
          method: "POST",
          url: "/api/v1/payouts",
          headers: { "x-api-key": shop.apiKey },
          payload: { external_id: `race-${i}`, amount: "10", address: RECIPIENT },
        }),
      ),
    );
    expect(replies.map((r) => r.statusCode)).toEqual(Array(12).fill(201));
    const statuses = replies.map((r) => r.json().status as string).sort();
    expect(statuses.filter((s) => s === "approved")).toHaveLength(5);
    expect(statuses.filter((s) => s === "pending_approval")).toHaveLength(7);
    expect(await approvedToday(shop.id)).toEqual({ n: 5, total: 50n * USDT });
    expect(await getMerchantBalance(t.ctx.db, shop.id)).toEqual({
      available: 880n * USDT,
      reserved: 120n * USDT,
    });
  });

  it("a payout an operator creates waits for approval even below the limits", async () => {
    const other = await addMerchant(t.ctx);
    await creditMerchant(t.ctx.db, {
      merchantId: other.id,
      currency: "USDT",
      amount: 100n * USDT,
      kind: "test_credit",
      refType: "test",
      refId: other.id,
    });
    const created = await createPayout(
      t.ctx,
      other.id,
      { kind: "operator", id: "00000000-0000-4000-8000-000000000001", label: "admin" },
      { external_id: "by-operator", amount: "1", address: RECIPIENT },
    );
    expect(created.payout).toMatchObject({ status: "pending_approval", autoApproved: false });
    expect(await approvedToday(other.id)).toEqual({ n: 0, total: 0n });
  });
});
