/**
 * postLedgers (the batch writer a block's confirmed deposits use): many ledger transactions in one
 * statement keep postLedger's invariants. Each transaction keeps its own row and balanced postings,
 * ids come back in input order, each merchant's balance takes the sum (its first posting and an
 * existing balance row alike), refs with array-literal metacharacters survive, and an unbalanced
 * transaction, a duplicate ref or an overdraft anywhere in the batch writes nothing.
 * PGlite or PostgreSQL (TEST_DATABASE_URL).
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { AppError } from "../../src/errors.js";
import { checkLedger } from "../../src/ledger/check-ledger.js";
import {
  creditMerchant,
  creditMerchants,
  getMerchantBalance,
  postLedgers,
} from "../../src/ledger/post-ledger.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let s: TestApp;
let a: string;
let b: string;

beforeAll(async () => {
  s = await createTestApp();
  a = (await createMerchant(s.ctx, { name: "Batch A", webhookSecret: "whsec-batch-a" })).merchant.id;
  b = (await createMerchant(s.ctx, { name: "Batch B", webhookSecret: "whsec-batch-b" })).merchant.id;
});
afterAll(() => s.close());

const count = async () =>
  (await queryRows<{ n: string }>(s.ctx.db, sql`SELECT count(*)::text AS n FROM ledger_postings`))[0]?.n;

/** Stored balances against postings, and transactions that do not balance (no recount: no orders). */
const books = async () => (await checkLedger(s.ctx.db)).filter((d) => d.check !== "recount");

describe("postLedgers", () => {
  it("writes each transaction with its postings and each merchant's summed delta in one statement", async () => {
    // A has a balance row already; B gets its first posting inside the batch.
    await creditMerchant(s.ctx.db, {
      merchantId: a,
      currency: "USDT",
      amount: 1n,
      kind: "seed",
      refType: "test",
      refId: "seed",
    });
    const at = new Date("2026-11-25T12:00:00.000Z");
    const refs = ["d-1", 'd-2,"quoted"\\slash', "d-3", "d-4", "d-5"];
    const amounts = [5n, 7n, 11n, 13n, 17n];
    const ids = await s.ctx.db.transaction((tx) =>
      creditMerchants(
        tx,
        refs.map((refId, i) => ({
          merchantId: i % 2 === 0 ? a : b,
          currency: "USDT",
          amount: amounts[i] as bigint,
          kind: "deposit_confirmed",
          refType: "deposit",
          refId,
          at,
        })),
      ),
    );
    expect(new Set(ids).size).toBe(5);
    const rows = await queryRows<{
      id: string;
      ref_id: string;
      merchant_id: string;
      created_at: Date | string;
    }>(
      s.ctx.db,
      sql`SELECT id::text AS id, ref_id, merchant_id::text AS merchant_id, created_at
          FROM ledger_transactions WHERE kind = 'deposit_confirmed'`,
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    // In input order, each with its own ref and merchant.
    expect(ids.map((id) => byId.get(id)?.ref_id)).toEqual(refs);
    expect(ids.map((id) => byId.get(id)?.merchant_id)).toEqual([a, b, a, b, a]);
    expect(rows.every((r) => new Date(r.created_at).getTime() === at.getTime())).toBe(true);
    const postings = await queryRows<{ txn_id: string; account: string; amount: string }>(
      s.ctx.db,
      sql`SELECT p.txn_id::text AS txn_id, p.account, p.amount::text AS amount FROM ledger_postings p
          JOIN ledger_transactions t ON t.id = p.txn_id WHERE t.kind = 'deposit_confirmed'
          ORDER BY p.txn_id, p.account`,
    );
    expect(postings).toHaveLength(10);
    for (const [i, id] of ids.entries()) {
      expect(postings.filter((p) => p.txn_id === id).map((p) => [p.account, p.amount])).toEqual([
        ["available", String(amounts[i])],
        ["received", String(-(amounts[i] as bigint))],
      ]);
    }
    expect((await getMerchantBalance(s.ctx.db, a)).available).toBe(1n + 5n + 11n + 17n);
    expect((await getMerchantBalance(s.ctx.db, b)).available).toBe(7n + 13n);
    expect(await books()).toEqual([]);
  });

  it("writes nothing when one transaction of the batch does not balance, repeats a ref or overdraws", async () => {
    const n = await count();
    const before = [await getMerchantBalance(s.ctx.db, a), await getMerchantBalance(s.ctx.db, b)];
    const credit = (merchantId: string, refId: string) => ({
      kind: "deposit_confirmed",
      merchantId,
      currency: "USDT" as const,
      refType: "deposit",
      refId,
      postings: [
        { account: "available" as const, amount: 3n },
        { account: "received" as const, amount: -3n },
      ],
    });
    await expect(
      s.ctx.db.transaction((tx) =>
        postLedgers(tx, [
          credit(a, "x-1"),
          {
            ...credit(b, "x-2"),
            postings: [
              { account: "available", amount: 3n },
              { account: "received", amount: -2n },
            ],
          },
        ]),
      ),
    ).rejects.toThrow(/does not balance/);
    await expect(
      s.ctx.db.transaction((tx) => postLedgers(tx, [credit(a, "x-3"), credit(a, "x-3")])),
    ).rejects.toThrow(/twice in one batch/);
    const overdraft = s.ctx.db.transaction((tx) =>
      postLedgers(tx, [
        credit(a, "x-4"),
        {
          kind: "payout_reserved",
          merchantId: b,
          currency: "USDT",
          refType: "payout",
          refId: "x-5",
          postings: [
            { account: "available", amount: -(before[1]!.available + 1n) },
            { account: "reserved", amount: before[1]!.available + 1n },
          ],
        },
      ]),
    );
    await expect(overdraft).rejects.toBeInstanceOf(AppError);
    await expect(overdraft).rejects.toMatchObject({ code: "INSUFFICIENT_BALANCE" });
    expect(await count()).toBe(n);
    expect([await getMerchantBalance(s.ctx.db, a), await getMerchantBalance(s.ctx.db, b)]).toEqual(before);
    expect(await books()).toEqual([]);
  });
});
