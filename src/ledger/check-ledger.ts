/**
 * `stablegate check-ledger` (DESIGN.md 14 and 16): proves, per currency (USDT, USDC) across every
 * chain, that
 *  1. every ledger transaction has postings and they sum to zero in each currency;
 *  2. each merchant's stored balance (merchant_balances, per currency) equals the sum of its
 *     postings in that currency;
 *  3. each merchant's postings in a currency equal its orders, deposits, strays, refunds and payouts
 *     in that currency recounted: received = the money its orders in that currency received (plus
 *     the deposits and refunded strays of that token), reserved = its live refunds and payouts
 *     drawing that currency, paid_out = its completed ones, available = received - reserved - paid_out.
 * A posting written in the wrong currency therefore shows as an unbalanced transaction, a stored
 * balance that differs, and a recount that differs, in both currencies.
 * `recountByChain` splits the same recount by the chain each sum arrived or left on, so the command
 * shows which chains it covered (the ledger itself is per currency).
 * Each part is one aggregate statement over the tables (a sequential scan and a hash aggregate), so
 * the check grows linearly with the ledger: see bench/ledger-check.ts.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { HOUSE_MERCHANT_ID } from "../payouts/house-account.js";

export interface LedgerDifference {
  check: "unbalanced_transaction" | "stored_balance" | "recount";
  /** txn_id (and currency) for an unbalanced transaction; merchant_id, currency and account otherwise. */
  key: Record<string, string>;
  stored: string;
  actual: string;
}

/** Refund and payout statuses whose amount is held in `reserved`. */
export const RESERVED_PAYOUT_STATUSES = [
  "awaiting_address",
  "pending_approval",
  "approved",
  "sending",
] as const;

/**
 * The sources of money credited to a merchant, each a statement answering (merchant_id, currency,
 * amount). Orders carry attached stray transfers (of the order's currency) in amount_received;
 * static-address deposits add their own source here; refunded stray transfers are the house
 * account's (payouts/house-account.ts).
 */
export const LEDGER_CREDIT_SOURCES: SQL[] = [
  sql`SELECT merchant_id, currency, amount_received AS amount FROM orders WHERE amount_received <> 0`,
  sql`SELECT merchant_id, currency, amount FROM deposits WHERE status = 'confirmed'`,
  // Stray transfers refunded: credited whole to the house account at their first refund.
  sql`SELECT ${HOUSE_MERCHANT_ID}::uuid AS merchant_id, currency, amount FROM stray_transfers
      WHERE resolution = 'refunded'`,
];

const reservedStatuses = sql.join(
  RESERVED_PAYOUT_STATUSES.map((status) => sql`${status}`),
  sql`, `,
);

export async function checkLedger(db: Executor): Promise<LedgerDifference[]> {
  // Per (transaction, currency): a transaction without postings answers one row with no currency.
  const unbalanced = await queryRows<{ txn_id: string; currency: string | null; total: string | null }>(
    db,
    sql`SELECT t.id::text AS txn_id, p.currency, p.total::text AS total
        FROM ledger_transactions t
        LEFT JOIN (SELECT txn_id, currency, sum(amount) AS total FROM ledger_postings
                   GROUP BY txn_id, currency) p
          ON p.txn_id = t.id
        WHERE p.total IS DISTINCT FROM 0
        UNION ALL
        SELECT p.txn_id::text, p.currency, sum(p.amount)::text FROM ledger_postings p
        WHERE NOT EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.id = p.txn_id)
        GROUP BY p.txn_id, p.currency
        ORDER BY 1, 2`,
  );
  const credits = sql.join(LEDGER_CREDIT_SOURCES, sql` UNION ALL `);
  // One row per merchant and currency: postings summed per account, the stored balance, and the
  // recount.
  const merchants = await queryRows<{
    merchant_id: string;
    currency: string;
    posted_available: string;
    posted_reserved: string;
    posted_paid_out: string;
    posted_received: string;
    stored_available: string | null;
    stored_reserved: string | null;
    stored_paid_out: string | null;
    recount_received: string;
    recount_reserved: string;
    recount_paid_out: string;
  }>(
    db,
    sql`WITH posted AS (
          SELECT merchant_id, currency,
                 sum(amount) FILTER (WHERE account = 'available') AS available,
                 sum(amount) FILTER (WHERE account = 'reserved') AS reserved,
                 sum(amount) FILTER (WHERE account = 'paid_out') AS paid_out,
                 sum(amount) FILTER (WHERE account = 'received') AS received
          FROM ledger_postings GROUP BY merchant_id, currency
        ), credited AS (
          SELECT merchant_id, currency, sum(amount) AS received FROM (${credits}) c
          GROUP BY merchant_id, currency
        ), held AS (
          SELECT merchant_id, currency,
                 sum(amount) FILTER (WHERE status IN (${reservedStatuses})) AS reserved,
                 sum(amount) FILTER (WHERE status = 'completed') AS paid_out
          FROM payouts GROUP BY merchant_id, currency
        ), keys AS (
          SELECT merchant_id, currency FROM posted
          UNION SELECT merchant_id, currency FROM merchant_balances
          UNION SELECT merchant_id, currency FROM credited UNION SELECT merchant_id, currency FROM held
        )
        SELECT k.merchant_id::text AS merchant_id, k.currency,
               coalesce(p.available, 0)::text AS posted_available,
               coalesce(p.reserved, 0)::text AS posted_reserved,
               coalesce(p.paid_out, 0)::text AS posted_paid_out,
               coalesce(-p.received, 0)::text AS posted_received,
               b.available::text AS stored_available, b.reserved::text AS stored_reserved,
               b.paid_out::text AS stored_paid_out,
               coalesce(c.received, 0)::text AS recount_received,
               coalesce(h.reserved, 0)::text AS recount_reserved,
               coalesce(h.paid_out, 0)::text AS recount_paid_out
        FROM keys k
        LEFT JOIN posted p ON (p.merchant_id, p.currency) = (k.merchant_id, k.currency)
        LEFT JOIN merchant_balances b ON (b.merchant_id, b.currency) = (k.merchant_id, k.currency)
        LEFT JOIN credited c ON (c.merchant_id, c.currency) = (k.merchant_id, k.currency)
        LEFT JOIN held h ON (h.merchant_id, h.currency) = (k.merchant_id, k.currency)
        ORDER BY 1, 2`,
  );

  const differences: LedgerDifference[] = unbalanced.map((row) => ({
    check: "unbalanced_transaction",
    key: Object.fromEntries(
      row.currency === null
        ? [["txn_id", row.txn_id]]
        : [
            ["txn_id", row.txn_id],
            ["currency", row.currency],
          ],
    ),
    stored: row.total ?? "no postings",
    actual: "0",
  }));
  for (const row of merchants) {
    const merchant = row.merchant_id;
    const currency = row.currency;
    const stored = (account: string, value: string | null, posted: string) => {
      if ((value ?? "0") !== posted) {
        differences.push({
          check: "stored_balance",
          key: { merchant_id: merchant, currency, account },
          stored: value ?? "0",
          actual: posted,
        });
      }
    };
    stored("available", row.stored_available, row.posted_available);
    stored("reserved", row.stored_reserved, row.posted_reserved);
    stored("paid_out", row.stored_paid_out, row.posted_paid_out);
    const received = BigInt(row.recount_received);
    const reserved = BigInt(row.recount_reserved);
    const paidOut = BigInt(row.recount_paid_out);
    const expected: Record<string, bigint> = {
      received,
      reserved,
      paid_out: paidOut,
      available: received - reserved - paidOut,
    };
    const posted: Record<string, string> = {
      received: row.posted_received,
      reserved: row.posted_reserved,
      paid_out: row.posted_paid_out,
      available: row.posted_available,
    };
    for (const account of ["received", "available", "reserved", "paid_out"]) {
      const actual = (expected[account] as bigint).toString();
      if (posted[account] !== actual) {
        differences.push({
          check: "recount",
          key: { merchant_id: merchant, currency, account },
          stored: posted[account] as string,
          actual,
        });
      }
    }
  }
  return differences;
}

/** The recount's sums of one chain and currency, in micro-units. */
export interface ChainRecount {
  chain: string;
  currency: string;
  received: bigint;
  reserved: bigint;
  paidOut: bigint;
}

/**
 * The recount of check 3 split by chain: what orders, deposits and refunded strays received on
 * each chain, and what refunds and payouts on each chain hold reserved or paid out. Summed over
 * the chains it is the per-currency recount.
 */
export async function recountByChain(db: Executor): Promise<ChainRecount[]> {
  const rows = await queryRows<{
    chain: string;
    currency: string;
    received: string;
    reserved: string;
    paid_out: string;
  }>(
    db,
    sql`WITH moved AS (
          SELECT chain, currency, amount_received AS received, 0::bigint AS reserved, 0::bigint AS paid_out
            FROM orders WHERE amount_received <> 0
          UNION ALL SELECT chain, currency, amount, 0, 0 FROM deposits WHERE status = 'confirmed'
          UNION ALL SELECT chain, currency, amount, 0, 0 FROM stray_transfers WHERE resolution = 'refunded'
          UNION ALL SELECT chain, currency, 0,
                 CASE WHEN status IN (${reservedStatuses}) THEN amount ELSE 0 END,
                 CASE WHEN status = 'completed' THEN amount ELSE 0 END
            FROM payouts
        )
        SELECT chain, currency, sum(received)::bigint::text AS received, sum(reserved)::bigint::text AS reserved,
               sum(paid_out)::bigint::text AS paid_out
        FROM moved GROUP BY chain, currency ORDER BY chain, currency`,
  );
  return rows.map((r) => ({
    chain: r.chain,
    currency: r.currency,
    received: BigInt(r.received),
    reserved: BigInt(r.reserved),
    paidOut: BigInt(r.paid_out),
  }));
}

export function formatLedgerDifference(difference: LedgerDifference): string {
  const key = Object.entries(difference.key)
    .map(([name, value]) => `${name}=${value}`)
    .join(" ");
  const what =
    difference.check === "unbalanced_transaction"
      ? "postings sum to"
      : difference.check === "stored_balance"
        ? "stored balance"
        : "ledger";
  const against =
    difference.check === "unbalanced_transaction"
      ? "expected"
      : difference.check === "stored_balance"
        ? "postings sum"
        : "recounted from orders, deposits, strays, refunds and payouts";
  return `${difference.check} ${key}: ${what} ${difference.stored}, ${against} ${difference.actual}`;
}
