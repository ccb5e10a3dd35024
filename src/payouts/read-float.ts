/**
 * The hot wallet's float as the dashboard's Payouts page shows it (DESIGN.md 14 and 16): one entry
 * per enabled chain and token, each read by the very function its sender checks payouts with
 * (payout-float.ts): TRON's USDT by readSenderFloat on the solidified state of one node, an EVM
 * chain's tokens by readEvmFloat at the newest block. Each entry says what the hot wallet holds,
 * what is in flight (committed to the chain and not yet in that balance), what is available to new
 * payouts, what the approved ones need, and whether the float is short by the sender's own check
 * (floatPosition). A node that does not answer gives its entries an `error`; the reply is still
 * whole.
 *
 * The top-level fields predate the EVM chains and stay as they were named: TRON's hot wallet (its
 * entry's figures and the TRX balance).
 */
import { sql } from "drizzle-orm";
import type { Chain } from "../chains/chain.js";
import { CHAIN_LABELS, type ChainId, type Currency } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { formatAmount } from "../money.js";
import { evmHotAddress } from "../wallet/read-evm-wallets.js";
import {
  FLOAT_LOW_REASON,
  floatPosition,
  readEvmFloat,
  readSenderFloat,
  type SenderFloat,
} from "./payout-float.js";

interface CountAndAmount {
  count: number;
  amount: string;
}

/** The float of one chain's hot wallet in one token. */
export interface FloatEntry {
  chain: ChainId;
  currency: Currency;
  /** the hot wallet on this chain, where a top-up goes; null unset */
  address: string | null;
  /** the balance the sender judges by (TRON: solidified; EVM: newest block); null on `error` */
  balance: string | null;
  /** committed to the chain and not yet in `balance` (without an answer: the `sending` payouts) */
  in_flight: CountAndAmount;
  /** `balance` less `in_flight`, never below zero: what new payouts can take; null on `error` */
  available: string | null;
  /** approved, not yet sent: what the float must cover */
  approved: CountAndAmount;
  pending_approval: CountAndAmount;
  /** what the approved payouts lack, by the sender's check ("0.000000" when covered) */
  shortfall: string;
  is_low: boolean;
  /** approved payouts the sender put back because this float was short */
  waiting_for_float: number;
  /** set when the float could not be read: the node did not answer, or nothing is configured */
  error: string | null;
}

export interface PayoutFloat {
  /** TRON's hot wallet (HOT_WALLET_ADDRESS or the key's address), where a top-up goes; null unset */
  address: string | null;
  usdt_balance: string | null;
  trx_balance: string | null;
  /** set when the node did not answer: the balances are null then */
  balance_error: string | null;
  approved: CountAndAmount;
  /** TRON payouts whose transaction is committed and not yet in the solidified balance */
  in_flight: CountAndAmount;
  pending_approval: CountAndAmount;
  /** how much USDT is missing for the approved payouts ("0.000000" when none) */
  shortfall: string;
  is_low: boolean;
  /** approved TRON payouts the sender put back because the float was short */
  waiting_for_float: number;
  /** every enabled chain's float, one entry per token */
  floats: FloatEntry[];
}

type Totals = {
  chain: string;
  currency: string;
  approved_n: number;
  approved: string;
  sending_n: number;
  sending: string;
  pending_n: number;
  pending: string;
  waiting_n: number;
};

/** The queue's totals per chain and currency, in one statement. */
async function queueTotals(
  ctx: Context,
): Promise<(chain: ChainId, currency: Currency) => Totals | undefined> {
  const rows = await queryRows<Totals>(
    ctx.db,
    sql`SELECT chain, currency,
          count(*) FILTER (WHERE status = 'approved')::int AS approved_n,
          coalesce(sum(amount) FILTER (WHERE status = 'approved'), 0)::text AS approved,
          count(*) FILTER (WHERE status = 'sending')::int AS sending_n,
          coalesce(sum(amount) FILTER (WHERE status = 'sending'), 0)::text AS sending,
          count(*) FILTER (WHERE status = 'pending_approval')::int AS pending_n,
          coalesce(sum(amount) FILTER (WHERE status = 'pending_approval'), 0)::text AS pending,
          count(*) FILTER (WHERE status = 'approved' AND wait_reason = ${FLOAT_LOW_REASON})::int AS waiting_n
        FROM payouts
        WHERE status IN ('approved', 'sending', 'pending_approval')
        GROUP BY chain, currency`,
  );
  return (chain, currency) => rows.find((r) => r.chain === chain && r.currency === currency);
}

const countOf = (n: number | undefined, amount: string | undefined): CountAndAmount => ({
  count: Number(n ?? 0),
  amount: formatAmount(BigInt(amount ?? "0")),
});

/** An entry from the queue's totals and the sender's float (or the reason there is none). */
function entryOf(
  chain: ChainId,
  currency: Currency,
  address: string | null,
  totals: Totals | undefined,
  read: { float: SenderFloat } | { error: string; unconfigured?: boolean },
): FloatEntry {
  const approved = BigInt(totals?.approved ?? "0");
  const waiting = Number(totals?.waiting_n ?? 0);
  const common = {
    chain,
    currency,
    address,
    approved: countOf(totals?.approved_n, totals?.approved),
    pending_approval: countOf(totals?.pending_n, totals?.pending),
    waiting_for_float: waiting,
  };
  if ("error" in read) {
    // Nothing to pay from: every approved payout is short. A node that did not answer says nothing.
    const short = read.unconfigured === true ? approved : 0n;
    return {
      ...common,
      balance: null,
      in_flight: countOf(totals?.sending_n, totals?.sending),
      available: null,
      shortfall: formatAmount(short),
      is_low: short > 0n || waiting > 0,
      error: read.error,
    };
  }
  const { float } = read;
  const position = floatPosition(float, approved);
  return {
    ...common,
    balance: formatAmount(float.balance),
    in_flight: { count: float.committedCount, amount: formatAmount(float.committed) },
    available: formatAmount(position.available),
    shortfall: formatAmount(position.shortfall),
    is_low: position.verdict === "float_low" || waiting > 0,
    error: null,
  };
}

const unanswered = (chain: ChainId) => `${CHAIN_LABELS[chain].name} node did not answer`;

/** TRON's USDT float (the solidified balance, as the sender reads it) and the hot wallet's TRX. */
async function tronFloat(
  ctx: Context,
  totals: Totals | undefined,
): Promise<{ entry: FloatEntry; trx: bigint | null }> {
  const address = ctx.config.hotWalletAddress ?? null;
  const usdt = ctx.chain.usdtContract;
  const fail = (error: string, unconfigured = false) => ({
    entry: entryOf("tron", "USDT", address, totals, { error, unconfigured }),
    trx: null,
  });
  if (!address) return fail("no hot wallet is configured", true);
  if (!usdt) return fail("no USDT contract is configured", true);
  try {
    // One node for the solidified head and the balance read after it (payout-chain.ts's order).
    const client = ctx.chain.client.select();
    const solid = await client.getSolidifiedNowBlock();
    const [float, account] = await Promise.all([
      readSenderFloat(
        { ctx, client, usdt, hotAddress: address },
        { number: solid.block_header.raw_data.number ?? 0 },
      ),
      client.getAccount(address),
    ]);
    // java-tron prints balances as JSON integers (exact below 2^53); converted to bigint at once.
    const trx = BigInt(account?.balance ?? 0);
    return { entry: entryOf("tron", "USDT", address, totals, { float }), trx };
  } catch (error) {
    ctx.log.warn({ err: error, chain: "tron" }, "hot wallet float unavailable");
    return fail(unanswered("tron"));
  }
}

/** An EVM chain's float in each of its tokens, each read by readEvmFloat as its sender does. */
async function evmFloats(
  ctx: Context,
  chain: Chain,
  totalsOf: (chain: ChainId, currency: Currency) => Totals | undefined,
): Promise<FloatEntry[]> {
  const nonces = chain.nonces;
  const hot = evmHotAddress(ctx, chain);
  // Shown EIP-55 checksummed: operators copy it into the wallet they top up from.
  const address = hot === undefined ? null : chain.address.display(hot);
  return Promise.all(
    chain.currencies.map(async (currency) => {
      const totals = totalsOf(chain.id, currency);
      if (!nonces || hot === undefined)
        return entryOf(chain.id, currency, address, totals, {
          error: "no EVM hot wallet is configured",
          unconfigured: true,
        });
      try {
        const token = (await chain.loadTokens()).find((t) => t.currency === currency);
        if (!token) throw new Error(`${chain.id} has no ${currency} token configured`);
        const float = await readEvmFloat(ctx.db, chain, nonces, token, hot);
        return entryOf(chain.id, currency, address, totals, { float });
      } catch (error) {
        ctx.log.warn({ err: error, chain: chain.id, currency }, "hot wallet float unavailable");
        return entryOf(chain.id, currency, address, totals, { error: unanswered(chain.id) });
      }
    }),
  );
}

export async function readPayoutFloat(ctx: Context): Promise<PayoutFloat> {
  const totalsOf = await queueTotals(ctx);
  const tronEnabled = ctx.chains.get("tron") !== undefined;
  const [tron, evm] = await Promise.all([
    tronEnabled ? tronFloat(ctx, totalsOf("tron", "USDT")) : null,
    Promise.all(
      ctx.chains.list.filter((chain) => chain.nonces !== undefined).map((c) => evmFloats(ctx, c, totalsOf)),
    ),
  ]);
  const floats = [...(tron ? [tron.entry] : []), ...evm.flat()];
  const head = tron?.entry ?? entryOf("tron", "USDT", null, undefined, { error: "TRON is not enabled" });
  const trx = tron?.trx ?? null;
  return {
    address: head.address,
    usdt_balance: head.balance,
    trx_balance: trx === null ? null : formatAmount(trx),
    balance_error: head.error,
    approved: head.approved,
    in_flight: head.in_flight,
    pending_approval: head.pending_approval,
    shortfall: head.shortfall,
    is_low: head.is_low,
    waiting_for_float: head.waiting_for_float,
    floats,
  };
}
