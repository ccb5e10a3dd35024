/**
 * The merchant ledger's one writer (DESIGN.md 14). A ledger transaction is a set of postings that
 * sum to zero; it is written with the merchant's balance delta in the caller's database
 * transaction, so the change it records and the money it moves commit or roll back together.
 *
 * Accounts: each merchant's `available` and `reserved`, and the merchant's counterparts `received`
 * (money that came in from the chain) and `paid_out` (money that left). The balance row is
 * updated by adding deltas (never read-modify-write); its CHECKs (available >= 0, reserved >= 0)
 * make an overdraft fail the whole transaction even when two reservations race.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
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
  postings: readonly Posting[];
  /** Default: the database's now(). */
  at?: Date;
}

/** The ledger transaction kinds this module's helpers write. Others may add their own. */
export type LedgerKind =
  "payment_confirmed" | "payout_reserved" | "payout_released" | "payout_settled" | (string & {});

/**
 * Writes one balanced ledger transaction and the merchant's balance delta. Throws (and so rolls the
 * caller's transaction back) when the postings do not sum to zero, and AppError
 * INSUFFICIENT_BALANCE when the postings would take `available` below zero.
 * Returns the ledger transaction's id.
 */
export async function postLedger(executor: Executor, txn: LedgerTxn): Promise<string> {
  const merged = new Map<LedgerAccount, bigint>();
  for (const posting of txn.postings) {
    merged.set(posting.account, (merged.get(posting.account) ?? 0n) + posting.amount);
  }
  const postings = [...merged].filter(([, amount]) => amount !== 0n);
  const total = postings.reduce((sum, [, amount]) => sum + amount, 0n);
  if (total !== 0n) throw new Error(`ledger transaction ${txn.kind} does not balance: sum ${total}`);
  if (postings.length === 0) throw new Error(`ledger transaction ${txn.kind} has no postings`);
  const delta = (account: LedgerAccount) => (merged.get(account) ?? 0n).toString();
  const at = txn.at ? sql`${txn.at.toISOString()}::timestamptz` : sql`now()`;
  const accounts = postings.map(([account]) => account);
  const amounts = postings.map(([, amount]) => amount.toString());
  try {
    // One statement: the transaction row, its postings and the balance delta.
    const [row] = await queryRows<{ id: string }>(
      executor,
      sql`WITH t AS (
            INSERT INTO ledger_transactions (kind, merchant_id, ref_type, ref_id, created_at)
            VALUES (${txn.kind}, ${txn.merchantId}::uuid, ${txn.refType}, ${txn.refId}, ${at})
            RETURNING id
          ), p AS (
            INSERT INTO ledger_postings (txn_id, merchant_id, account, amount)
            SELECT t.id, ${txn.merchantId}::uuid, x.account, x.amount
            FROM t, unnest(${`{${accounts.join(",")}}`}::text[], ${`{${amounts.join(",")}}`}::numeric[])
              AS x (account, amount)
          ), b AS (
            UPDATE merchant_balances SET
              available = available + ${delta("available")}::numeric,
              reserved = reserved + ${delta("reserved")}::numeric,
              paid_out = paid_out + ${delta("paid_out")}::numeric,
              updated_at = ${at}
            WHERE merchant_id = ${txn.merchantId}::uuid
            RETURNING 1
          ), first AS (
            -- The merchant's first posting. (PostgreSQL checks an INSERT's CHECK constraints on the
            -- proposed row before ON CONFLICT, so a negative delta must never be proposed to an
            -- existing row: the UPDATE above takes those.)
            INSERT INTO merchant_balances AS mb (merchant_id, available, reserved, paid_out, updated_at)
            SELECT ${txn.merchantId}::uuid, ${delta("available")}::numeric, ${delta("reserved")}::numeric,
                   ${delta("paid_out")}::numeric, ${at}
            WHERE NOT EXISTS (SELECT 1 FROM b)
            ON CONFLICT (merchant_id) DO UPDATE SET
              available = mb.available + excluded.available,
              reserved = mb.reserved + excluded.reserved,
              paid_out = mb.paid_out + excluded.paid_out,
              updated_at = excluded.updated_at
          )
          SELECT id::text AS id FROM t`,
    );
    return row?.id ?? "";
  } catch (error) {
    if (isBalanceCheck(error)) {
      throw new AppError("INSUFFICIENT_BALANCE", "the merchant's available balance is too small");
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

/** Money that came in for the merchant (a confirmed payment, an attached stray, a deposit). */
export async function creditMerchant(
  executor: Executor,
  input: { merchantId: string; amount: bigint; kind: string; refType: string; refId: string; at?: Date },
): Promise<string> {
  return postLedger(executor, {
    kind: input.kind,
    merchantId: input.merchantId,
    refType: input.refType,
    refId: input.refId,
    ...(input.at ? { at: input.at } : {}),
    postings: [
      { account: "available", amount: input.amount },
      { account: "received", amount: -input.amount },
    ],
  });
}

export interface MerchantBalance {
  available: bigint;
  reserved: bigint;
}

/** The merchant's balance as the ledger keeps it (zeros before its first posting). */
export async function getMerchantBalance(executor: Executor, merchantId: string): Promise<MerchantBalance> {
  const [row] = await queryRows<{ available: string; reserved: string }>(
    executor,
    sql`SELECT available::text AS available, reserved::text AS reserved
        FROM merchant_balances WHERE merchant_id = ${merchantId}::uuid`,
  );
  return { available: BigInt(row?.available ?? "0"), reserved: BigInt(row?.reserved ?? "0") };
}
