/**
 * The hot wallet's float as the dashboard's Payouts page shows it (DESIGN.md 14): its USDT and TRX
 * balances read from the node, what the approved refunds and payouts still need, and whether the
 * float is short, by the rule of payout-float.ts.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { formatAmount } from "../money.js";
import { readUsdtBalance } from "./usdt-balance.js";
import { floatShortfall, waitingForFloat } from "./payout-float.js";

export interface PayoutFloat {
  /** the hot wallet (HOT_WALLET_ADDRESS or the key's address), where a top-up goes; null unset */
  address: string | null;
  usdt_balance: string | null;
  trx_balance: string | null;
  /** set when the node did not answer: the balances are null then */
  balance_error: string | null;
  approved: { count: number; amount: string };
  /** payouts whose transaction is signed or sent (the balance may not show them yet) */
  in_flight: { count: number; amount: string };
  pending_approval: { count: number; amount: string };
  /** how much USDT is missing for the approved payouts ("0.000000" when none) */
  shortfall: string;
  is_low: boolean;
  /** approved payouts the sender put back because the float was short */
  waiting_for_float: number;
}

type Totals = {
  approved_n: number;
  approved: string;
  flight_n: number;
  flight: string;
  pending_n: number;
  pending: string;
};

export async function readPayoutFloat(ctx: Context): Promise<PayoutFloat> {
  const [totals] = await queryRows<Totals>(
    ctx.db,
    sql`SELECT
          count(*) FILTER (WHERE status = 'approved')::int AS approved_n,
          coalesce(sum(amount) FILTER (WHERE status = 'approved'), 0)::text AS approved,
          count(*) FILTER (WHERE status = 'sending')::int AS flight_n,
          coalesce(sum(amount) FILTER (WHERE status = 'sending'), 0)::text AS flight,
          count(*) FILTER (WHERE status = 'pending_approval')::int AS pending_n,
          coalesce(sum(amount) FILTER (WHERE status = 'pending_approval'), 0)::text AS pending
        FROM payouts
        WHERE status IN ('approved', 'sending', 'pending_approval')`,
  );
  const approved = BigInt(totals?.approved ?? "0");
  const [live] = await queryRows<{ n: number; total: string }>(
    ctx.db,
    sql`SELECT count(DISTINCT p.id)::int AS n, coalesce(sum(p.amount), 0)::text AS total
        FROM payout_transactions t JOIN payouts p ON p.id = t.payout_id
        WHERE t.state IN ('signed', 'sent')`,
  );
  const committed = BigInt(live?.total ?? "0");
  const base = {
    approved: { count: Number(totals?.approved_n ?? 0), amount: formatAmount(approved) },
    in_flight: { count: Number(live?.n ?? 0), amount: formatAmount(committed) },
    pending_approval: {
      count: Number(totals?.pending_n ?? 0),
      amount: formatAmount(BigInt(totals?.pending ?? "0")),
    },
    waiting_for_float: (await waitingForFloat(ctx.db)).count,
  };
  const address = ctx.config.hotWalletAddress ?? null;
  const usdt = ctx.chain.usdtContract;
  if (!address || !usdt) {
    return {
      address,
      usdt_balance: null,
      trx_balance: null,
      balance_error: address ? null : "no hot wallet is configured",
      ...base,
      shortfall: formatAmount(approved),
      is_low: approved > 0n,
    };
  }
  try {
    const [usdtBalance, account] = await Promise.all([
      readUsdtBalance(ctx, address),
      ctx.chain.client.getAccount(address),
    ]);
    const balance = usdtBalance ?? 0n;
    // java-tron prints balances as JSON integers (exact below 2^53); converted to bigint at once.
    const sun = BigInt(account?.balance ?? 0);
    const shortfall = floatShortfall(balance, committed, approved);
    return {
      address,
      usdt_balance: formatAmount(balance),
      trx_balance: formatAmount(sun),
      balance_error: null,
      ...base,
      shortfall: formatAmount(shortfall),
      is_low: shortfall > 0n || base.waiting_for_float > 0,
    };
  } catch (error) {
    ctx.log.warn({ err: error }, "hot wallet float unavailable");
    return {
      address,
      usdt_balance: null,
      trx_balance: null,
      balance_error: "TRON node unreachable",
      ...base,
      shortfall: "0.000000",
      is_low: base.waiting_for_float > 0,
    };
  }
}
