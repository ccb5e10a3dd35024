/**
 * The merchant ledger's one writer (DESIGN.md 14). A ledger transaction is a set of postings that
 * sum to zero; it is written with the merchant's balance delta in the caller's database
 * transaction, so the change it records and the money it moves commit or roll back together.
 *
 * Accounts: each merchant's `available` and `reserved`, and the merchant's counterparts `received`
 * (money that came in from the chain) and `paid_out` (money that left). The balance row is
 * updated by adding deltas (never read-modify-write); its CHECKs (available >= 0, reserved >= 0)
 * make an overdraft fail the whole transaction even when two reservations race.
 *
 * Every account is kept per currency (DESIGN.md 16 "Balances", migration 0030): a ledger
 * transaction moves money of one currency (the order's, the deposit's, the stray's, the payout's),
 * its postings carry it, and the merchant's balance row is (merchant, currency). So the CHECKs judge
 * each currency alone: a USDT payout can never spend USDC money.
 */
import { sql } from "drizzle-orm";
import { CURRENCIES, type Currency } from "../chains/chain-types.js";
import type { Executor } from "../db/connection.js";
import { pgArray } from "../db/pg-array.js";
import { queryRows } from "../db/query-rows.js";
import { AppError } from "../errors.js";

export const LEDGER_ACCOUNTS = ["available", "reserved", "received", "paid_out"] as const;
export type LedgerAccount = (typeof LEDGER_ACCOUNTS)[number];

export interface Posting {
  account: LedgerAccount;
  /** Micro-USDT; never 0. */
  amount: bigint;
}

export interface LedgerTxn {
  /** What happened, e.g. payment_confirmed, payout_reserved, payout_released, payout_settled. */
  kind: string;
  merchantId: string;
  /** What it belongs to: order, payout, stray_transfer, deposit ... */
  refType: string;
  refId: string;
  /** The currency of the money every posting of this transaction moves. */
  currency: Currency;
  postings: readonly Posting[];
  /** Default: the database's now(). */
  at?: Date;
}

/** The ledger transaction kinds this module's helpers write. Others may add their own. */
export type LedgerKind =
  "payment_confirmed" | "payout_reserved" | "payout_released" | "payout_settled" | (string & {});

/**
 * Writes one balanced ledger transaction and the merchant's balance delta in its currency. Throws
 * (and so rolls the caller's transaction back) when the postings do not sum to zero, and AppError
 * INSUFFICIENT_BALANCE when the postings would take `available` in that currency below zero.
 * Returns the ledger transaction's id.
 */
export async function postLedger(executor: Executor, txn: LedgerTxn): Promise<string> {
  const [id] = await postLedgers(executor, [txn]);
  return id ?? "";
}

/**
 * Writes many balanced ledger transactions in one statement (a block confirming hundreds of
 * deposits posts them all at once): each transaction keeps its own row and postings, each must sum
 * to zero (checked before anything is written), and each (merchant, currency) balance row takes the
 * sum of its transactions' deltas in one update. The balance CHECKs therefore judge each merchant's
 * net delta of the batch in each currency (for a single transaction, its own delta). Within one call, (kind, merchant, ref_type,
 * ref_id) must be distinct. Returns the ledger transaction ids in the order of `txns`.
 */
export async function postLedgers(executor: Executor, txns: readonly LedgerTxn[]): Promise<string[]> {
  if (txns.length === 0) return [];
  const keys = new Set<string>();
  const rows = txns.map((txn, index) => {
    const merged = new Map<LedgerAccount, bigint>();
    for (const posting of txn.postings) {
      merged.set(posting.account, (merged.get(posting.account) ?? 0n) + posting.amount);
    }
    const postings = [...merged].filter(([, amount]) => amount !== 0n);
    const total = postings.reduce((sum, [, amount]) => sum + amount, 0n);
    if (total !== 0n) throw new Error(`ledger transaction ${txn.kind} does not balance: sum ${total}`);
    if (postings.length === 0) throw new Error(`ledger transaction ${txn.kind} has no postings`);
    const key = JSON.stringify([txn.kind, txn.merchantId, txn.refType, txn.refId]);
    if (keys.has(key)) throw new Error(`ledger transaction ${txn.kind} ${txn.refId} twice in one batch`);
    keys.add(key);
    return { txn, n: index + 1, postings };
  });
  // Each (merchant, currency) balance delta: the sum of its transactions' postings.
  const deltas = new Map<
    string,
    {
      merchantId: string;
      currency: Currency;
      available: bigint;
      reserved: bigint;
      paidOut: bigint;
      at: string | null;
    }
  >();
  for (const { txn, postings } of rows) {
    const balanceKey = `${txn.merchantId} ${txn.currency}`;
    const d = deltas.get(balanceKey) ?? {
      merchantId: txn.merchantId,
      currency: txn.currency,
      available: 0n,
      reserved: 0n,
      paidOut: 0n,
      at: null,
    };
    for (const [account, amount] of postings) {
      if (account === "available") d.available += amount;
      if (account === "reserved") d.reserved += amount;
      if (account === "paid_out") d.paidOut += amount;
    }
    const at = txn.at?.toISOString() ?? null;
    if (at !== null && (d.at === null || at > d.at)) d.at = at;
    deltas.set(balanceKey, d);
  }
  const postingRows = rows.flatMap(({ n, postings }) =>
    postings.map(([account, amount]) => ({ n, account, amount })),
  );
  const balances = [...deltas.values()];
  try {
    // One statement: the transaction rows, their postings and each merchant's balance delta.
    const out = await queryRows<{ id: string; n: string }>(
      executor,
      sql`WITH x AS (
            SELECT * FROM unnest(${pgArray(rows.map((r) => r.txn.kind))}::text[],
                                 ${pgArray(rows.map((r) => r.txn.merchantId))}::uuid[],
                                 ${pgArray(rows.map((r) => r.txn.refType))}::text[],
                                 ${pgArray(rows.map((r) => r.txn.refId))}::text[],
                                 ${pgArray(rows.map((r) => r.txn.at?.toISOString() ?? null))}::timestamptz[],
                                 ${pgArray(rows.map((r) => r.txn.currency))}::text[])
              WITH ORDINALITY AS x (kind, merchant_id, ref_type, ref_id, at, currency, n)
          ), t AS (
            INSERT INTO ledger_transactions (kind, merchant_id, ref_type, ref_id, created_at)
            SELECT kind, merchant_id, ref_type, ref_id, coalesce(at, now()) FROM x ORDER BY n
            RETURNING id, kind, merchant_id, ref_type, ref_id
          ), tx AS (
            SELECT t.id, x.n, t.merchant_id FROM t
            JOIN x ON (x.kind, x.merchant_id, x.ref_type, x.ref_id) = (t.kind, t.merchant_id, t.ref_type, t.ref_id)
          ), p AS (
            INSERT INTO ledger_postings (txn_id, merchant_id, account, amount, currency)
            SELECT tx.id, tx.merchant_id, y.account, y.amount, x.currency
            FROM unnest(${pgArray(postingRows.map((p) => String(p.n)))}::bigint[],
                        ${pgArray(postingRows.map((p) => p.account))}::text[],
                        ${pgArray(postingRows.map((p) => p.amount.toString()))}::numeric[]) AS y (n, account, amount)
            JOIN tx ON tx.n = y.n
            JOIN x ON x.n = y.n
          ), d AS (
            SELECT * FROM unnest(${pgArray(balances.map((d) => d.merchantId))}::uuid[],
                                 ${pgArray(balances.map((d) => d.currency))}::text[],
                                 ${pgArray(balances.map((d) => d.available.toString()))}::numeric[],
                                 ${pgArray(balances.map((d) => d.reserved.toString()))}::numeric[],
                                 ${pgArray(balances.map((d) => d.paidOut.toString()))}::numeric[],
                                 ${pgArray(balances.map((d) => d.at))}::timestamptz[])
              AS d (merchant_id, currency, available, reserved, paid_out, at)
          ), b AS (
            UPDATE merchant_balances mb SET
              available = mb.available + d.available,
              reserved = mb.reserved + d.reserved,
              paid_out = mb.paid_out + d.paid_out,
              updated_at = coalesce(d.at, now())
            FROM d WHERE mb.merchant_id = d.merchant_id AND mb.currency = d.currency
            RETURNING mb.merchant_id, mb.currency
          ), first AS (
            -- A merchant's first posting. (PostgreSQL checks an INSERT's CHECK constraints on the
            -- proposed row before ON CONFLICT, so a negative delta must never be proposed to an
            -- existing row: the UPDATE above takes those.)
            INSERT INTO merchant_balances AS mb (merchant_id, currency, available, reserved, paid_out, updated_at)
            SELECT d.merchant_id, d.currency, d.available, d.reserved, d.paid_out, coalesce(d.at, now())
            FROM d WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.merchant_id = d.merchant_id AND b.currency = d.currency)
            ON CONFLICT (merchant_id, currency) DO UPDATE SET
              available = mb.available + excluded.available,
              reserved = mb.reserved + excluded.reserved,
              paid_out = mb.paid_out + excluded.paid_out,
              updated_at = excluded.updated_at
          )
          SELECT id::text AS id, n::text AS n FROM tx`,
    );
    const ids = new Map(out.map((r) => [Number(r.n), r.id]));
    return rows.map((r) => ids.get(r.n) ?? "");
  } catch (error) {
    if (isBalanceCheck(error)) {
      const currencies = [...new Set(txns.map((txn) => txn.currency))].join(", ");
      throw new AppError(
        "INSUFFICIENT_BALANCE",
        `the merchant's available ${currencies} balance is too small`,
      );
    }
    throw error;
  }
}

function isBalanceCheck(error: unknown): boolean {
  for (let e: unknown = error; e !== undefined && e !== null; e = (e as { cause?: unknown }).cause) {
    const { code, constraint, message } = e as { code?: string; constraint?: string; message?: string };
    if (code === "23514" && (constraint?.startsWith("merchant_balances") ?? true)) return true;
    if (typeof message === "string" && message.includes("merchant_balances_available_check")) return true;
    if (e === (e as { cause?: unknown }).cause) break;
  }
  return false;
}

export interface Credit {
  merchantId: string;
  /** The currency of the money that came in. */
  currency: Currency;
  amount: bigint;
  kind: string;
  refType: string;
  refId: string;
  at?: Date;
}

/** Money that came in for the merchant (a confirmed payment, an attached stray, a deposit). */
export async function creditMerchant(executor: Executor, input: Credit): Promise<string> {
  const [id] = await creditMerchants(executor, [input]);
  return id ?? "";
}

/** Many credits in one statement (one ledger transaction each): a block's confirmed deposits. */
export async function creditMerchants(executor: Executor, credits: readonly Credit[]): Promise<string[]> {
  return postLedgers(
    executor,
    credits.map((input) => ({
      kind: input.kind,
      merchantId: input.merchantId,
      refType: input.refType,
      refId: input.refId,
      currency: input.currency,
      ...(input.at ? { at: input.at } : {}),
      postings: [
        { account: "available", amount: input.amount },
        { account: "received", amount: -input.amount },
      ],
    })),
  );
}

export interface MerchantBalance {
  available: bigint;
  reserved: bigint;
}

/**
 * The merchant's balance in `currency` as the ledger keeps it (zeros before its first posting in
 * that currency). Default USDT: SPEC's `balance` is the USDT balance.
 */
export async function getMerchantBalance(
  executor: Executor,
  merchantId: string,
  currency: Currency = "USDT",
): Promise<MerchantBalance> {
  const balances = await getMerchantBalances(executor, merchantId, [currency]);
  return balances[currency] ?? { available: 0n, reserved: 0n };
}

/**
 * The merchant's balance per currency, in one query: each of `currencies` (zeros where it has
 * none), and any other currency it holds a balance row in (money never drops out of view when a
 * deployment stops enabling a currency). Keys in CURRENCIES' order.
 */
export async function getMerchantBalances(
  executor: Executor,
  merchantId: string,
  currencies: readonly Currency[],
): Promise<Partial<Record<Currency, MerchantBalance>>> {
  const rows = await queryRows<{ currency: Currency; available: string; reserved: string }>(
    executor,
    sql`SELECT currency, available::text AS available, reserved::text AS reserved
        FROM merchant_balances WHERE merchant_id = ${merchantId}::uuid`,
  );
  const out: Partial<Record<Currency, MerchantBalance>> = {};
  for (const currency of CURRENCIES) {
    const row = rows.find((r) => r.currency === currency);
    if (row) out[currency] = { available: BigInt(row.available), reserved: BigInt(row.reserved) };
    else if (currencies.includes(currency)) out[currency] = { available: 0n, reserved: 0n };
  }
  return out;
}
