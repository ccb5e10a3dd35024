/**
 * How a merchant's balance is made, from its double-entry ledger (DESIGN.md 14): the merchant's
 * own accounts (available + reserved) summed by what moved the money. Every line is signed (money
 * in positive, money out negative) and the lines add up to the balance exactly:
 *
 *   payments + deposits + stray_transfers + refunds + payouts + adjustments = available + reserved
 *   ... + pending = available, pending = -reserved (refunds and payouts not yet sent)
 *
 * - payments: confirmed order payments, and stray transfers attached to an order;
 * - deposits: confirmed deposits to static addresses;
 * - stray_transfers: stray transfers credited so they could be refunded;
 * - refunds / payouts: those sent (settled), by the payout's kind;
 * - adjustments: any other ledger transaction kind (none is written today; kept so the sum holds).
 * A reservation and its release move money between available and reserved only, so they change
 * `pending`, never the sum. Kept per currency (DESIGN.md 16): each currency's lines add up to that
 * currency's balance. Read through ledger_transactions_merchant_idx (migration 0028): the
 * cost follows the merchant's ledger, which only the merchant detail reads this way.
 */
import { sql } from "drizzle-orm";
import type { Currency } from "../chains/chain-types.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";

export interface BalanceBreakdown {
  payments: bigint;
  deposits: bigint;
  stray_transfers: bigint;
  refunds: bigint;
  payouts: bigint;
  adjustments: bigint;
  /** -reserved: refunds and payouts reserved, not yet sent. */
  pending: bigint;
  /** The sum of the lines above: the available balance. */
  available: bigint;
}

type Line = Exclude<keyof BalanceBreakdown, "pending" | "available">;

const LINE_OF_KIND: Record<string, Line> = {
  payment_confirmed: "payments",
  stray_attached: "payments",
  deposit_confirmed: "deposits",
  stray_received: "stray_transfers",
};

interface Row extends Record<string, unknown> {
  currency: Currency;
  kind: string;
  payout_kind: string | null;
  own: string;
  reserved: string;
}

/** Every line zero. */
export function emptyBreakdown(): BalanceBreakdown {
  return {
    payments: 0n,
    deposits: 0n,
    stray_transfers: 0n,
    refunds: 0n,
    payouts: 0n,
    adjustments: 0n,
    pending: 0n,
    available: 0n,
  };
}

/** The merchant's breakdown in one currency (every line zero where it has none). */
export async function getBalanceBreakdown(
  executor: Executor,
  merchantId: string,
  currency: Currency = "USDT",
): Promise<BalanceBreakdown> {
  return (await getBalanceBreakdowns(executor, merchantId))[currency] ?? emptyBreakdown();
}

/**
 * The merchant's breakdown per currency it has postings in, from one query: each currency's lines
 * add up to that currency's balance (a ledger transaction moves one currency).
 */
export async function getBalanceBreakdowns(
  executor: Executor,
  merchantId: string,
): Promise<Partial<Record<Currency, BalanceBreakdown>>> {
  const rows = await queryRows<Row>(
    executor,
    sql`SELECT lp.currency, t.kind, p.kind AS payout_kind,
          coalesce(sum(lp.amount) FILTER (WHERE lp.account IN ('available', 'reserved')), 0)::text AS own,
          coalesce(sum(lp.amount) FILTER (WHERE lp.account = 'reserved'), 0)::text AS reserved
        FROM ledger_transactions t
        JOIN ledger_postings lp ON lp.txn_id = t.id
        LEFT JOIN payouts p ON t.ref_type = 'payout' AND p.id::text = t.ref_id
        WHERE t.merchant_id = ${merchantId}::uuid
        GROUP BY lp.currency, t.kind, p.kind`,
  );
  const out: Partial<Record<Currency, BalanceBreakdown>> = {};
  for (const row of rows) {
    const result = (out[row.currency] ??= emptyBreakdown());
    const own = BigInt(row.own);
    result.pending -= BigInt(row.reserved);
    if (own === 0n) continue;
    const line: Line =
      LINE_OF_KIND[row.kind] ??
      (row.kind === "payout_settled" && row.payout_kind !== null
        ? row.payout_kind === "refund"
          ? "refunds"
          : "payouts"
        : "adjustments");
    result[line] += own;
  }
  for (const result of Object.values(out)) {
    result.available =
      result.payments +
      result.deposits +
      result.stray_transfers +
      result.refunds +
      result.payouts +
      result.adjustments +
      result.pending;
  }
  return out;
}
