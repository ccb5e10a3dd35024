/**
 * Sending approved refunds and payouts on an EVM chain (DESIGN.md 14; docs/payouts.md "Sending on
 * EVM chains"). One sender per enabled EVM chain where the EVM hot wallet's key is set; any number
 * of workers may run it. A round:
 *
 *  1. claims due payouts of its chain under a lease (payout-store.ts claimDuePayouts: approved, or
 *     sending with a look due, but not while the outbox still has its transaction on the way);
 *  2. looks at each sending payout's transaction in the outbox (src/outbox/): final with a success
 *     receipt AND the final chain's Transfer log of the exact units from the hot wallet to the
 *     payout's address -> `completed`; final with a failed receipt -> `failed` (reservation
 *     released); either records what its landed transactions cost in gas (evm-payout-gas.ts); `dropped` (its nonce went to a fill) -> submitted again under a new ref; anything
 *     else -> looked at again in a few seconds (the outbox's own pass re-sends, replaces below the
 *     market, and re-sends the same bytes after a reorganisation);
 *  3. checks the float (payout-float.ts, readEvmFloat) for the payouts to submit, and submits the
 *     covered ones' ERC-20 transfers through the outbox in ONE database transaction that also moves
 *     them to `sending` (submitMany's onStore): a kill between the two cannot happen, so no payout
 *     is ever submitted twice under one ref, nor moved to `sending` without its stored bytes;
 *  4. gives every lease back with the next look (payout-release.ts).
 *
 * The outbox ref of a payout's n-th submission is its id for the first and `<id>:<n>` after;
 * payouts.attempts holds n, so the sending payout's live transaction is always found by its ref.
 * Nothing here relies on transfer()'s returned bool (Ethereum's USDT returns none).
 */
import { sql } from "drizzle-orm";
import type { Chain, TokenConfig } from "../chains/chain.js";
import type { ChainId } from "../chains/chain-types.js";
import { microToUnits } from "../chains/token-units.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { eachLimit } from "../each-limit.js";
import { payouts } from "../db/schema.js";
import { formatAmount } from "../money.js";
import { findByPurposes, type OutboxRow } from "../outbox/outbox-store.js";
import { hotWalletSigner } from "../outbox/signers.js";
import { submitMany, type SubmitInput } from "../outbox/submit.js";
import { and, eq, inArray } from "drizzle-orm";
import { EVM_PAYOUT_PURPOSE, evmPayoutRef, landedGasWei } from "./evm-payout-gas.js";
import { FLOAT_LOW_REASON, floatCheck, readEvmFloat, type SenderFloat } from "./payout-float.js";
import { releasePayouts, type Release } from "./payout-release.js";
import { claimDuePayouts } from "./payout-store.js";
import type { PayoutRow } from "./payout-types.js";
import { transitionPayout, transitionToSending } from "./transition-payout.js";

/**
 * A round's lease. Short, because a round is a few reads and one submitMany, and a killed worker's
 * payouts wait this long for another; safe, because the lease is not what prevents a second
 * payment: the outbox's (purpose, ref) is stored once, and the move to `sending` in the same
 * transaction checks the lease, the status and the attempt under a row lock (a round that lost its
 * lease stores nothing).
 */
export const EVM_PAYOUT_LEASE_MS = 15_000;
/** The next look at a payout whose transaction is in flight (the outbox's pass runs every 2 s). */
export const EVM_PAYOUT_LOOK_MS = 2_000;
/** A payout the float does not cover looks again after this long (as TRON's). */
export const EVM_FLOAT_WAIT_MS = 30_000;
/** Short only by transactions already in a block (paid in the balance): look again soon. */
export const EVM_SETTLING_WAIT_MS = 3_000;
/** Final payouts a round ends at once (each reads its transaction's Transfer logs, then commits). */
const FINISH_CONCURRENCY = 8;
/** A node or database error puts the payout back for this long. */
export const EVM_RETRY_MS = 10_000;
/**
 * Gas limit = the node's estimate + 25 %. A token transfer's gas depends on storage the estimate
 * saw: a recipient whose balance was zero costs ~17,000 more than one already holding tokens, and
 * a payout estimated while an earlier one to the same address is still pending sees the other
 * case. 25 % of a ~35,000-65,000 estimate covers that swing; unused gas is not paid.
 */
export const EVM_GAS_MARGIN_PERCENT = 25n;

export const floatLowMessage = (currency: string, chain: string) =>
  `the hot wallet's ${currency} float on ${chain} is too small; waiting for a top-up`;

export interface EvmSendOptions {
  owner?: string;
  limit?: number;
  leaseMs?: number;
}

export interface EvmSendResult {
  claimed: number;
  submitted: number;
  completed: number;
  failed: number;
  waitingForFloat: number;
}

/** One round of the EVM payout sender of `chainId` (see the header). */
export async function runEvmPayouts(
  ctx: Context,
  chainId: ChainId,
  options: EvmSendOptions = {},
): Promise<EvmSendResult> {
  const result: EvmSendResult = { claimed: 0, submitted: 0, completed: 0, failed: 0, waitingForFloat: 0 };
  const chain = ctx.chains.get(chainId);
  if (!chain?.nonces || ctx.config.evmWallet.hotWalletPrivateKey === undefined) return result;
  const owner = options.owner ?? `evm-payout-sender-${chainId}-${process.pid}`;
  const ids = await claimDuePayouts(ctx, owner, options.limit ?? 50, options.leaseMs ?? EVM_PAYOUT_LEASE_MS, {
    chain: chainId,
    inFlight: IN_OUTBOX,
  });
  result.claimed = ids.length;
  if (ids.length === 0) return result;
  const rows = await ctx.db
    .select()
    .from(payouts)
    .where(
      and(
        inArray(payouts.id, ids),
        eq(payouts.leaseOwner, owner),
        inArray(payouts.status, ["approved", "sending"]),
      ),
    )
    // Oldest approval first, as claimed: a float that covers only some sends the oldest.
    .orderBy(payouts.approvedAt, payouts.id);
  const releases: Release[] = [];
  const released = new Set<string>();
  const release = (r: Release) => {
    released.add(r.id);
    releases.push(r);
  };
  try {
    const refs = rows.map((row) => ({
      purpose: EVM_PAYOUT_PURPOSE,
      ref: evmPayoutRef(row.id, row.status === "approved" ? row.attempts + 1 : row.attempts),
    }));
    const versions = await findByPurposes(ctx.db, chainId, refs);
    const toSubmit: { row: PayoutRow; attempt: number }[] = [];
    const toFinish: { row: PayoutRow; tx: OutboxRow }[] = [];
    for (const [n, row] of rows.entries()) {
      const ref = refs[n]?.ref as string;
      const tx = liveVersion(versions.filter((v) => v.ref === ref));
      if (row.status === "approved") {
        // Stored with its move to `sending` in one transaction, so an approved payout has none.
        if (tx)
          ctx.log.error({ payoutId: row.id, hash: tx.hash }, "approved payout already has a transaction");
        else toSubmit.push({ row, attempt: row.attempts + 1 });
        continue;
      }
      if (!tx) toSubmit.push({ row, attempt: row.attempts });
      else if (tx.state === "dropped") toSubmit.push({ row, attempt: row.attempts + 1 });
      else if (tx.state === "final") toFinish.push({ row, tx });
      else release({ id: row.id, delayMs: EVM_PAYOUT_LOOK_MS });
    }
    await eachLimit(toFinish, FINISH_CONCURRENCY, async ({ row, tx }) => {
      const outcome = await finishEvmPayout(ctx, chain, row, tx).catch((error: unknown) => {
        release({ id: row.id, delayMs: EVM_RETRY_MS, lastError: messageOf(error) });
        return "error" as const;
      });
      if (outcome === "completed") result.completed++;
      if (outcome === "failed") result.failed++;
      if (outcome === "unmatched") release({ id: row.id, delayMs: 60_000, lastError: unmatched(row, tx) });
    });
    if (toSubmit.length > 0) {
      const sent = await submitPayouts(ctx, chain, owner, toSubmit, release);
      result.submitted = sent.submitted;
      result.waitingForFloat = sent.waitingForFloat;
    }
  } catch (error) {
    ctx.log.warn({ err: error, chain: chainId }, "EVM payout round failed; retrying later");
    for (const row of rows)
      if (!released.has(row.id)) release({ id: row.id, delayMs: EVM_RETRY_MS, lastError: messageOf(error) });
  }
  // Completed and failed payouts gave their lease back in their transition; the others here.
  for (const row of rows) if (!released.has(row.id)) release({ id: row.id, delayMs: EVM_PAYOUT_LOOK_MS });
  await releasePayouts(ctx, owner, releases);
  return result;
}

const LIVE = ["signed", "broadcast", "included", "final"];
function liveVersion(versions: OutboxRow[]): OutboxRow | undefined {
  return versions.find((v) => LIVE.includes(v.state)) ?? versions.find((v) => v.state === "dropped");
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * How `last_error` of a payout held by an unmatched transaction ends: the alert `payout_unmatched`
 * (src/alerts/alert-conditions.ts) counts the sending payouts whose error ends so.
 */
export const UNMATCHED_MARK = "; an operator must look";
const unmatched = (row: PayoutRow, tx: OutboxRow) =>
  `transaction ${tx.hash} is final and succeeded but the final chain shows no Transfer of ${formatAmount(row.amount)} ${row.currency} to the payout's address${UNMATCHED_MARK}`;

/**
 * A sending payout whose live transaction (any version of its current ref: evmPayoutRef in SQL) is
 * still on its way in the outbox: a look would only give it back, so it is not claimed. It is
 * claimed again once the outbox finds it final, or drops it.
 */
const IN_OUTBOX = sql`EXISTS (
  SELECT 1 FROM evm_transactions g JOIN evm_transactions t
    ON t.chain = g.chain AND t.sender = g.sender AND t.nonce = g.nonce AND t.purpose = g.purpose AND t.ref = g.ref
  WHERE g.chain = p.chain AND g.purpose = ${EVM_PAYOUT_PURPOSE} AND g.generation = 0
    AND g.ref = CASE WHEN p.attempts <= 1 THEN p.id::text ELSE p.id::text || ':' || p.attempts::text END
    AND t.state IN ('signed', 'broadcast', 'included'))`;

async function tokenOf(chain: Chain, currency: string): Promise<TokenConfig> {
  const token = (await chain.loadTokens()).find((t) => t.currency === currency);
  if (!token) throw new Error(`${chain.id} has no ${currency} token configured`);
  return token;
}

/**
 * Float check, gas estimate and one submitMany for the round's payouts to submit: their transfers
 * and their moves to `sending` commit together, or nothing does.
 */
async function submitPayouts(
  ctx: Context,
  chain: Chain,
  owner: string,
  batch: { row: PayoutRow; attempt: number }[],
  release: (r: Release) => void,
): Promise<{ submitted: number; waitingForFloat: number }> {
  const nonces = chain.nonces;
  if (!nonces) return { submitted: 0, waitingForFloat: 0 };
  const signer = hotWalletSigner(ctx, chain.id);
  const floats = new Map<string, Promise<SenderFloat>>();
  const reserved = new Map<string, bigint>();
  const gas = new Map<string, Promise<bigint>>();
  const inputs: Omit<SubmitInput, "signer">[] = [];
  const going: { row: PayoutRow; attempt: number; ref: string }[] = [];
  const estimated: {
    row: PayoutRow;
    attempt: number;
    to: string;
    data: string;
    estimate: Promise<bigint>;
  }[] = [];
  const notSubmitted = (row: PayoutRow, error: unknown) => {
    ctx.log.warn({ err: error, payoutId: row.id }, "EVM payout not submitted; retrying later");
    release({ id: row.id, delayMs: EVM_RETRY_MS, lastError: messageOf(error) });
  };
  let waitingForFloat = 0;
  for (const { row, attempt } of batch) {
    try {
      const token = await tokenOf(chain, row.currency);
      if (!row.address) throw new Error("the payout has no address");
      let float = floats.get(row.currency);
      if (!float) {
        float = readEvmFloat(ctx.db, chain, nonces, token, signer.address);
        floats.set(row.currency, float);
      }
      const held = reserved.get(row.currency) ?? 0n;
      const verdict = floatCheck(await float, held, row.amount);
      if (verdict === "float_low") {
        waitingForFloat++;
        release({
          id: row.id,
          delayMs: EVM_FLOAT_WAIT_MS,
          waitReason: FLOAT_LOW_REASON,
          lastError: floatLowMessage(row.currency, chain.id),
        });
        continue;
      }
      if (verdict === "settling") {
        release({ id: row.id, delayMs: EVM_SETTLING_WAIT_MS });
        continue;
      }
      reserved.set(row.currency, held + row.amount);
      const units = microToUnits(row.amount, token.decimals);
      const data = nonces.transferData(row.address, units);
      let estimate = gas.get(data);
      if (!estimate) {
        // Every estimate of the round at once, awaited below (a handler now: none rejects unheard).
        estimate = nonces.estimateGas({ from: signer.address, to: token.contract, data });
        estimate.catch(() => undefined);
        gas.set(data, estimate);
      }
      estimated.push({ row, attempt, to: token.contract, data, estimate });
    } catch (error) {
      notSubmitted(row, error);
    }
  }
  for (const { row, attempt, to, data, estimate } of estimated) {
    try {
      const gasLimit = ((await estimate) * (100n + EVM_GAS_MARGIN_PERCENT) + 99n) / 100n;
      const ref = evmPayoutRef(row.id, attempt);
      inputs.push({ purpose: EVM_PAYOUT_PURPOSE, ref, to, data, gasLimit });
      going.push({ row, attempt, ref });
    } catch (error) {
      notSubmitted(row, error);
    }
  }
  if (inputs.length === 0) return { submitted: 0, waitingForFloat };
  const byRef = new Map(going.map((g) => [g.ref, g]));
  await submitMany(ctx, chain.id, inputs, signer, async (tx, stored) => {
    const moves = stored.flatMap((s) => {
      const g = byRef.get(s.ref);
      return g ? [{ ...g, hash: s.hash }] : [];
    });
    await moveToSending(ctx, tx, owner, moves);
  });
  ctx.log.info({ chain: chain.id, count: inputs.length }, "EVM payouts submitted");
  return { submitted: inputs.length, waitingForFloat };
}

/** Inside the outbox's store: the payouts still held move to sending; any other aborts the batch. */
async function moveToSending(
  ctx: Context,
  tx: Executor,
  owner: string,
  moves: { row: PayoutRow; attempt: number; hash: string }[],
): Promise<void> {
  if (moves.length === 0) return;
  const locked = await tx
    .select()
    .from(payouts)
    .where(
      inArray(
        payouts.id,
        moves.map((m) => m.row.id),
      ),
    )
    .orderBy(payouts.id)
    .for("update");
  const byId = new Map(locked.map((r) => [r.id, r]));
  for (const m of moves) {
    const now = byId.get(m.row.id);
    if (!now || now.leaseOwner !== owner || now.status !== m.row.status || now.attempts !== m.row.attempts)
      throw new Error(`payout ${m.row.id} changed meanwhile; its batch is not stored`);
  }
  await transitionToSending(
    ctx,
    tx,
    moves.map((m) => ({ payout: byId.get(m.row.id) as PayoutRow, txHash: m.hash, attempt: m.attempt })),
  );
}

/**
 * The end of a payout whose transaction is final: a failed receipt -> failed (reservation
 * released); a success receipt with the final chain's Transfer of the exact units from the hot
 * wallet to the payout's address -> completed (settled, webhook). Final by the outbox
 * but not (yet) by the chain's final transfers ("not_final"), or no matching Transfer ("unmatched":
 * it stays `sending`, reserved, with the words in last_error, for an operator).
 */
export async function finishEvmPayout(
  ctx: Context,
  chain: Chain,
  row: PayoutRow,
  landed: OutboxRow,
): Promise<"completed" | "failed" | "not_final" | "unmatched" | "lost"> {
  const token = await tokenOf(chain, row.currency);
  let matched = false;
  if (landed.success !== false) {
    const transfers = await chain.finalTransfers(landed.hash);
    if (!transfers) return "not_final";
    const units = microToUnits(row.amount, token.decimals);
    matched = transfers.some(
      (t) =>
        t.to === row.address && t.from === landed.sender && t.currency === row.currency && t.units === units,
    );
    if (!matched) {
      ctx.log.error(
        { payoutId: row.id, hash: landed.hash },
        "final payout transaction without its Transfer log",
      );
      return "unmatched";
    }
  }
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(payouts).where(eq(payouts.id, row.id)).for("update");
    if (!locked || locked.status !== "sending") return "lost";
    // Every submission's landed version, this one included (final), paid its gas.
    const gasCostWei = await landedGasWei(tx, chain.id, locked.id, locked.attempts);
    const common = { txHash: landed.hash, gasCostWei, leaseOwner: null, leaseExpiresAt: null };
    const payload = {
      tx_hash: landed.hash,
      block_number: landed.blockNumber,
      nonce: landed.nonce,
      gas_cost_wei: gasCostWei.toString(),
    };
    if (!matched) {
      const reason = "the transaction reverted (receipt status 0)";
      await transitionPayout(ctx, tx, {
        payout: locked,
        to: "failed",
        event: `${locked.kind}_failed`,
        payload: { ...payload, reason },
        patch: { ...common, failedAt: now, lastError: `transaction failed on chain: ${reason}` },
      });
      ctx.log.error({ txHash: landed.hash, chain: chain.id }, "payout failed on chain; reservation released");
      return "failed";
    }
    await transitionPayout(ctx, tx, {
      payout: locked,
      to: "completed",
      event: `${locked.kind}_completed`,
      payload,
      patch: { ...common, completedAt: now, lastError: null },
    });
    ctx.log.info(
      { txHash: landed.hash, chain: chain.id, amount: formatAmount(locked.amount) },
      "payout completed",
    );
    return "completed";
  });
}
