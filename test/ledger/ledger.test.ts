/**
 * The merchant ledger (DESIGN.md 14): a confirmed payment credits the merchant in the confirmer's
 * transaction, an additional payment credits only what it adds, postLedger refuses unbalanced
 * postings and overdrafts, check-ledger finds every kind of difference, and migration 0011
 * backfills the ledger from orders confirmed before it. PGlite or PostgreSQL (TEST_DATABASE_URL).
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/connection.js";
import { loadMigrations, migrate } from "../../src/db/migrate.js";
import { queryRows } from "../../src/db/query-rows.js";
import { AppError } from "../../src/errors.js";
import { checkLedger } from "../../src/ledger/check-ledger.js";
import { getMerchantBalance, postLedger } from "../../src/ledger/post-ledger.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";

const USDT = 1_000_000n;
let t: ChainTest;

beforeAll(async () => {
  t = await startChainTest();
  await t.scanner.sync();
});
afterAll(() => t.close());

async function ledgerRows(orderId: string) {
  return queryRows<{ kind: string; account: string; amount: string }>(
    t.ctx.db,
    sql`SELECT t.kind, p.account, p.amount::text AS amount
        FROM ledger_transactions t JOIN ledger_postings p ON p.txn_id = t.id
        WHERE t.ref_type = 'order' AND t.ref_id = ${orderId} ORDER BY t.id, p.account`,
  );
}

describe("the merchant ledger", () => {
  it("credits a confirmed payment once, and an additional payment by what it adds", async () => {
    const before = await getMerchantBalance(t.ctx.db, t.merchantId);
    const order = await t.order("10");
    await t.pay(order.address, 12n * USDT);
    await t.finalize();
    expect((await t.orderRow(order.id)).status).toBe("overpaid");
    expect(await ledgerRows(order.id)).toEqual([
      { kind: "payment_confirmed", account: "available", amount: "12000000" },
      { kind: "payment_confirmed", account: "received", amount: "-12000000" },
    ]);
    // scanning again changes nothing
    await t.finalize();
    expect(await ledgerRows(order.id)).toHaveLength(2);

    await t.pay(order.address, 3n * USDT);
    await t.finalize();
    expect((await t.orderRow(order.id)).amountReceived).toBe(15n * USDT);
    expect((await ledgerRows(order.id)).map((row) => row.amount)).toEqual([
      "12000000",
      "-12000000",
      "3000000",
      "-3000000",
    ]);
    const after = await getMerchantBalance(t.ctx.db, t.merchantId);
    expect(after.available - before.available).toBe(15n * USDT);
    expect(after.reserved).toBe(before.reserved);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  it("refuses postings that do not sum to zero and an overdraft, writing nothing", async () => {
    const count = async () =>
      (await queryRows<{ n: string }>(t.ctx.db, sql`SELECT count(*)::text AS n FROM ledger_transactions`))[0]
        ?.n;
    const n = await count();
    const balance = await getMerchantBalance(t.ctx.db, t.merchantId);
    await expect(
      t.ctx.db.transaction((tx) =>
        postLedger(tx, {
          kind: "broken",
          merchantId: t.merchantId,
          currency: "USDT",
          refType: "test",
          refId: "1",
          postings: [
            { account: "available", amount: 5n },
            { account: "received", amount: -4n },
          ],
        }),
      ),
    ).rejects.toThrow(/does not balance/);
    const overdraft = t.ctx.db.transaction((tx) =>
      postLedger(tx, {
        kind: "payout_reserved",
        merchantId: t.merchantId,
        currency: "USDT",
        refType: "test",
        refId: "2",
        postings: [
          { account: "available", amount: -(balance.available + 1n) },
          { account: "reserved", amount: balance.available + 1n },
        ],
      }),
    );
    await expect(overdraft).rejects.toBeInstanceOf(AppError);
    await expect(overdraft).rejects.toMatchObject({ code: "INSUFFICIENT_BALANCE" });
    expect(await count()).toBe(n);
    expect(await getMerchantBalance(t.ctx.db, t.merchantId)).toEqual(balance);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });

  it("check-ledger names a stored balance, an unbalanced transaction and a recount that differ", async () => {
    const merchant = t.merchantId;
    await t.ctx.db
      .transaction(async (tx) => {
        await tx.execute(
          sql`UPDATE merchant_balances SET available = available + 1 WHERE merchant_id = ${merchant}::uuid`,
        );
        const differences = await checkLedger(tx);
        expect(differences).toEqual([
          expect.objectContaining({
            check: "stored_balance",
            key: { merchant_id: merchant, currency: "USDT", account: "available" },
          }),
        ]);
        // an order credited without a posting: the recount disagrees with the postings
        await tx.execute(
          sql`UPDATE merchant_balances SET available = available - 1 WHERE merchant_id = ${merchant}::uuid`,
        );
        await tx.execute(sql`UPDATE orders SET amount_received = amount_received + 7
        WHERE id = (SELECT id FROM orders WHERE merchant_id = ${merchant}::uuid AND amount_received > 0 LIMIT 1)`);
        const recount = await checkLedger(tx);
        expect(recount.map((d) => [d.check, d.key.account, d.stored, d.actual])).toEqual([
          ["recount", "received", expect.any(String), expect.any(String)],
          ["recount", "available", expect.any(String), expect.any(String)],
        ]);
        expect(BigInt(recount[0]?.actual ?? 0) - BigInt(recount[0]?.stored ?? 0)).toBe(7n);
        await tx.execute(sql`UPDATE ledger_postings SET amount = amount + 1
        WHERE txn_id = (SELECT min(id) FROM ledger_transactions) AND account = 'received'`);
        const unbalanced = await checkLedger(tx);
        expect(unbalanced.filter((d) => d.check === "unbalanced_transaction")).toHaveLength(1);
        tx.rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error && /rollback/i.test(error.message))) throw error;
      });
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});

describe("migration 0011", () => {
  it("backfills the ledger and the balances from orders confirmed before it", async () => {
    const database = await openDatabase({});
    try {
      const all = loadMigrations();
      await migrate(
        database,
        all.filter((m) => m.name < "0011"),
      );
      await database.session((s) =>
        s.exec(`INSERT INTO merchants (id, name, api_key_hash, api_key_prefix, webhook_secret, created_at, updated_at)
          VALUES ('00000000-0000-7000-8000-000000000001', 'A', 'ha', 'sg_test_a', 'whsec-test-a-0123', now(), now()),
                 ('00000000-0000-7000-8000-000000000002', 'B', 'hb', 'sg_test_b', 'whsec-test-b-0123', now(), now());
          INSERT INTO orders (id, merchant_id, external_id, amount_expected, amount_received, network, status, address,
            callback_url, expires_at, confirmed_at, created_at, updated_at)
          VALUES (gen_random_uuid(), '00000000-0000-7000-8000-000000000001', 'a1', 5000000, 5000000, 'devnet',
                  'completed', 'T1', 'https://x.example', now(), now(), now(), now()),
                 (gen_random_uuid(), '00000000-0000-7000-8000-000000000001', 'a2', 5000000, 2500000, 'devnet',
                  'underpaid', 'T2', 'https://x.example', now(), now(), now(), now()),
                 (gen_random_uuid(), '00000000-0000-7000-8000-000000000001', 'a3', 5000000, 0, 'devnet',
                  'pending', 'T3', 'https://x.example', now(), NULL, now(), now()),
                 (gen_random_uuid(), '00000000-0000-7000-8000-000000000002', 'b1', 1000000, 1000001, 'devnet',
                  'overpaid', 'T4', 'https://x.example', now(), now(), now(), now())`),
      );
      expect(await migrate(database)).toEqual(all.filter((m) => m.name >= "0011").map((m) => m.name));
      expect(await getMerchantBalance(database.db, "00000000-0000-7000-8000-000000000001")).toEqual({
        available: 7_500_000n,
        reserved: 0n,
      });
      expect(await getMerchantBalance(database.db, "00000000-0000-7000-8000-000000000002")).toEqual({
        available: 1_000_001n,
        reserved: 0n,
      });
      const [counts] = await queryRows<{ t: string; p: string }>(
        database.db,
        sql`SELECT (SELECT count(*) FROM ledger_transactions)::text AS t,
                   (SELECT count(*) FROM ledger_postings)::text AS p`,
      );
      expect(counts).toEqual({ t: "3", p: "6" });
      // Migration 0030: everything written before it is USDT, balances keyed by currency.
      const currencies = await queryRows<{ postings: string; balances: string }>(
        database.db,
        sql`SELECT (SELECT string_agg(DISTINCT currency, ',') FROM ledger_postings) AS postings,
                   (SELECT string_agg(DISTINCT currency, ',') FROM merchant_balances) AS balances`,
      );
      expect(currencies).toEqual([{ postings: "USDT", balances: "USDT" }]);
      expect(await getMerchantBalance(database.db, "00000000-0000-7000-8000-000000000001", "USDC")).toEqual({
        available: 0n,
        reserved: 0n,
      });
      expect(await checkLedger(database.db)).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
