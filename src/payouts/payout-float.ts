/**
 * The hot wallet's float: the one rule the sender, the dashboard (read-float.ts) and the
 * `payout_float_low` alert share, per chain and token.
 *
 *  - The sender's check (floatCheck): the solidified balance, less every payout whose transaction
 *    is committed to the chain but not in that balance, less what the round has reserved, must cover
 *    the payout. Otherwise the payout waits with `wait_reason = 'float_low'`; that column, not the
 *    wording of last_error, is what the dashboard and the alert count (waitingForFloat).
 *  - The dashboard's float per chain and token (read-float.ts, floatPosition) is the same check
 *    applied to the whole queue, on the same reads (readSenderFloat, readEvmFloat).
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import type { Chain, NonceSending, TokenConfig } from "../chains/chain.js";
import type { ChainId } from "../chains/chain-types.js";
import { unitsToMicro } from "../chains/token-units.js";
import { formatAmount } from "../money.js";
import { usdtBalance } from "../sweeps/sweep-chain.js";
import type { SweepDeps } from "../sweeps/sweep-types.js";

/** wait_reason of an approved payout the float did not cover at its last look. */
export const FLOAT_LOW_REASON = "float_low";
/** last_error of such a payout: the words for people. */
export const FLOAT_LOW_MESSAGE = "the hot wallet's USDT float is too small; waiting for a top-up";

/**
 * The hot wallet's USDT on the solidified chain, and the money committed to the chain but not in
 * that balance: every live (signed or sent) transaction, and every transaction recorded solid in a
 * block above the solidified head the balance was read after. A transaction the sender has recorded
 * solid at or below that head is in the balance and holds no float any more; one in a block of the
 * head chain is not in the balance yet and counts once (a head balance paid it already, so it
 * counted twice until the sender looked at it).
 */
export interface SenderFloat {
  balance: bigint;
  committed: bigint;
  /** How many payout transactions `committed` adds up (the float panel's "in flight" count). */
  committedCount: number;
  /**
   * The part of `committed` that may be paid in `balance` already: live transactions the sender
   * has not seen in a block above the solidified head (the next look at them settles it).
   */
  unseen: bigint;
}

/** What a TRON float read needs: the node, the USDT contract and the hot wallet (no key). */
export type FloatDeps = Pick<SweepDeps, "ctx" | "client" | "usdt" | "hotAddress">;

/** The most blocks at or below the solidified head a float read fetches to settle transactions. */
const SETTLE_BLOCKS = 4;

/**
 * Reads the float on the round's node. `solid` is that node's solidified head, read before the
 * balance: the balance (read after it, on the same node) holds every block up to it, so what is
 * recorded solid at or below it is paid in the balance, and what is in a later block is counted.
 * A live transaction the sender saw in a block at or below that head (solidified, not yet recorded
 * by its look) is taken as paid only once that node's block at that height lists it: a fork may
 * have dropped the block it was seen in. Up to SETTLE_BLOCKS such blocks are fetched, oldest first;
 * what they do not settle stays counted.
 */
export async function readSenderFloat(d: FloatDeps, solid: { number: number }): Promise<SenderFloat> {
  const balance = await usdtBalance(d, d.hotAddress, { solidified: true });
  // One statement, one snapshot: the totals and the transactions the solidified blocks may settle.
  const [pending] = await queryRows<{
    n: number;
    total: string;
    unseen: string;
    settling: { tx_hash: string; amount: string; block: string }[] | null;
  }>(
    d.ctx.db,
    sql`SELECT count(*)::int AS n, coalesce(sum(p.amount), 0)::text AS total,
               coalesce(sum(p.amount) FILTER (WHERE t.state IN ('signed', 'sent')
                 AND (t.block_number IS NULL OR t.block_number <= ${solid.number})), 0)::text AS unseen,
               json_agg(json_build_object('tx_hash', t.tx_hash, 'amount', p.amount::text,
                 'block', t.block_number::text))
                 FILTER (WHERE t.state IN ('signed', 'sent') AND t.block_number <= ${solid.number}) AS settling
        FROM payout_transactions t JOIN payouts p ON p.id = t.payout_id
        WHERE t.state IN ('signed', 'sent')
           OR (t.state = 'solid' AND t.block_number > ${solid.number})`,
  );
  let committed = BigInt(pending?.total ?? "0");
  let committedCount = Number(pending?.n ?? 0);
  let unseen = BigInt(pending?.unseen ?? "0");
  const settling = pending?.settling ?? [];
  const blocks = [...new Set(settling.map((s) => Number(s.block)))].sort((a, b) => a - b);
  for (const number of blocks.slice(0, SETTLE_BLOCKS)) {
    // At or below the node's solidified head, its block at that height is final.
    const block = await d.client.getBlockByNum(number);
    const listed = new Set((block?.transactions ?? []).map((tx) => tx.txID));
    for (const s of settling) {
      if (Number(s.block) !== number || !listed.has(s.tx_hash)) continue;
      committed -= BigInt(s.amount);
      committedCount--;
      unseen -= BigInt(s.amount);
    }
  }
  return { balance, committed, committedCount, unseen };
}

/**
 * Whether the float covers `amount` on top of `reserved` (what the round stored meanwhile):
 * "covered"; "settling" when it is short only by transactions that may be paid in the balance
 * already (`unseen`: the next look at them settles it, so no alert and no top-up wait yet);
 * "float_low" when it is short.
 */
export function floatCheck(
  float: SenderFloat,
  reserved: bigint,
  amount: bigint,
): "covered" | "settling" | "float_low" {
  const owed = float.committed + reserved;
  if (float.balance - owed >= amount) return "covered";
  if (float.balance - (owed - float.unseen) >= amount) return "settling";
  return "float_low";
}

/** How much USDT is missing for `approved` (not yet signed) once `committed` (live) is paid. */
export function floatShortfall(balance: bigint, committed: bigint, approved: bigint): bigint {
  const spare = balance - committed;
  return approved > spare ? approved - spare : 0n;
}

/**
 * A float as the dashboard shows it, judged by the sender's own check (floatCheck) on the whole
 * queue: `available` is the balance less what is committed (never below zero), what a new payout
 * can take; `shortfall` what the approved payouts lack, counted only when the sender would make
 * them wait (`float_low`). Short only by transactions that may be paid in the balance already
 * ("settling") is not short: the sender looks again in seconds, without an alert.
 */
export function floatPosition(
  float: SenderFloat,
  approved: bigint,
): { available: bigint; shortfall: bigint; verdict: ReturnType<typeof floatCheck> } {
  const spare = float.balance - float.committed;
  const verdict = floatCheck(float, 0n, approved);
  return {
    available: spare > 0n ? spare : 0n,
    shortfall: verdict === "float_low" ? floatShortfall(float.balance, float.committed, approved) : 0n,
    verdict,
  };
}

/** The approved payouts waiting for a top-up (of one chain, when named): their count and amount. */
export async function waitingForFloat(
  db: Executor,
  chain?: ChainId,
): Promise<{ count: number; amount: string }> {
  const [row] = await queryRows<{ n: number; amount: string }>(
    db,
    sql`SELECT count(*)::int AS n, coalesce(sum(amount), 0)::text AS amount FROM payouts
        WHERE status = 'approved' AND wait_reason = ${FLOAT_LOW_REASON}
          ${chain === undefined ? sql`` : sql`AND chain = ${chain}`}`,
  );
  return { count: Number(row?.n ?? 0), amount: formatAmount(BigInt(row?.amount ?? "0")) };
}

/**
 * The float of an EVM chain's hot wallet in one token (the rule beside TRON's above), for the
 * sender and the dashboard alike: its balance, in whole micro-units, less every payout of that chain
 * and currency whose transaction is submitted but not yet final (signed, broadcast, or included) and
 * not yet paid in that balance.
 *
 * The balance AND the hot wallet's transaction count are read at one block, after the payouts. A
 * payout whose nonce is below that count is in that block or an earlier one, so the balance has
 * paid it: it is not counted again. This is exact at that block, and stays so after a
 * reorganisation: a transaction it drops gives its amount back to the balance and is counted again
 * as unpaid. A mined transaction that reverted paid nothing and is not counted, so the error is
 * never against the float. Those the outbox saw `included` above that block are `unseen`: a float
 * short only by them settles (a look again in a few seconds, no alert). The payouts are read
 * BEFORE the balance: one stored after them is not in that block.
 */
export async function readEvmFloat(
  db: Executor,
  chain: Pick<Chain, "id" | "headNumber">,
  nonces: Pick<NonceSending, "tokenBalance" | "nonceOf">,
  token: Pick<TokenConfig, "currency" | "contract" | "decimals">,
  holder: string,
): Promise<SenderFloat> {
  const pending = await queryRows<{ amount: string; state: string; nonce: number }>(
    db,
    sql`SELECT p.amount::text AS amount, e.state, e.nonce
        FROM payouts p JOIN evm_transactions e
          ON e.chain = p.chain AND e.purpose = 'payout'
         AND e.ref = CASE WHEN p.attempts <= 1 THEN p.id::text ELSE p.id::text || ':' || p.attempts END
        WHERE p.chain = ${chain.id} AND p.currency = ${token.currency} AND p.status = 'sending'
          AND e.state IN ('signed', 'broadcast', 'included')`,
  );
  const block = await chain.headNumber();
  const [units, mined] = await Promise.all([
    nonces.tokenBalance(token.contract, holder, block),
    nonces.nonceOf(holder, block),
  ]);
  // Whole micro-units only: what an 18-decimal balance holds below one micro-unit pays nothing.
  const balance = unitsToMicro(units, token.decimals).micro;
  let committed = 0n;
  let count = 0;
  let unseen = 0n;
  for (const row of pending) {
    if (Number(row.nonce) < mined) continue;
    committed += BigInt(row.amount);
    count++;
    if (row.state === "included") unseen += BigInt(row.amount);
  }
  return { balance, committed, committedCount: count, unseen };
}
