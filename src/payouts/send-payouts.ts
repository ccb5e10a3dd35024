/**
 * Sending approved refunds and payouts from the hot wallet: the orchestration of a round (DESIGN.md
 * 14; docs/payouts.md "Sending" walks through it). claim -> float check -> sign -> store (with the
 * move to `sending`, BEFORE the broadcast) -> broadcast -> look until solidified: completed, failed
 * on chain, or expired unseen (only then is a new transaction signed). The reads and writes are
 * payout-store.ts, the chain reads and the signing payout-chain.ts, the float's rule
 * payout-float.ts.
 *
 * "Expired" is judged against the solidified head read BEFORE looking the transaction up in the
 * solidified chain, both on the round's one pinned node (payoutDeps): any block that could hold it
 * has a timestamp at or before its expiration, so it is at or below that head, and the lookup that
 * follows would have found it. Only the second round in a row that finds it so marks it expired
 * (../sweeps/missing-sightings.ts). A node error ends the round. A transaction seen in block B is
 * not looked up again until the solidified head should reach B.
 */
import type { Context } from "../context.js";
import { isNodeCallError } from "../chains/node-call-error.js";
import { chainFailure } from "../chains/tron/transaction-failure.js";
import { formatAmount } from "../money.js";
import { broadcast, rebroadcast } from "../sweeps/sweep-chain.js";
import { MISSING_ROUNDS_TO_EXPIRE, noteMissing } from "../sweeps/missing-sightings.js";
import type { SweepDeps } from "../sweeps/sweep-types.js";
import {
  newSendRound,
  payoutDeps,
  signTransfer,
  untilSolid,
  type SendRound,
  type Signing,
} from "./payout-chain.js";
import { FLOAT_LOW_MESSAGE, FLOAT_LOW_REASON, floatCheck } from "./payout-float.js";
import {
  claimDuePayouts,
  finishPayout,
  loadClaimed,
  markExpired,
  releasePayout,
  storeSigned,
  type ClaimedPayout,
  type LiveTx,
  type Release,
} from "./payout-store.js";

export { payoutDeps };

export const PAYOUT_LEASE_MS = 60_000;
/** How soon to look again at a transaction on its way to the solidified chain (at the least). */
export const PAYOUT_WAIT_MS = 3_000;
/** The longest wait for the solidified head to reach a transaction's block before looking again. */
export const PAYOUT_MAX_WAIT_MS = 60_000;
/**
 * Payouts of one round advanced at once. A send is mostly waiting (the node, and the commit of the
 * stored transaction before its broadcast), so several at a time keep a worker busy; each payout's
 * own steps stay in order, and the float check reserves synchronously (see signNew).
 */
export const PAYOUT_SEND_CONCURRENCY = 10;
/** How long a payout waits when the float is short before it checks again. */
export const PAYOUT_FLOAT_WAIT_MS = 30_000;
/** Back-off after a node error. */
export const PAYOUT_RETRY_MS = 10_000;

/** The hooks tests use to kill a worker at each step of a send (SIGKILL from inside). */
export type SendStep = "signed" | "stored" | "broadcast" | "waiting";

export interface SenderOptions {
  owner?: string;
  limit?: number;
  leaseMs?: number;
  /** Called after each step of a send (tests: crash points). */
  onStep?: (step: SendStep, payoutId: string) => void | Promise<void>;
}

export interface SendResult {
  claimed: number;
  completed: number;
  failed: number;
  waitingForFloat: number;
}

type Outcome = "completed" | "failed" | "float_low" | "waiting" | "lost";

/** Claims due payouts and advances each as far as the chain allows now, in one round. */
export async function runDuePayouts(ctx: Context, options: SenderOptions = {}): Promise<SendResult> {
  const result: SendResult = { claimed: 0, completed: 0, failed: 0, waitingForFloat: 0 };
  const owner = options.owner ?? `payout-sender-${process.pid}`;
  const d = payoutDeps(ctx, owner);
  if (!d) return result;
  const ids = await claimDuePayouts(ctx, owner, options.limit ?? 10, options.leaseMs ?? PAYOUT_LEASE_MS);
  result.claimed = ids.length;
  const queue = await loadClaimed(ctx, ids, owner);
  const round = newSendRound(d);
  // The round's node failed: the round ends; what it has not reached waits for the next round.
  let nodeFailed = false;
  const lane = async () => {
    for (let next = queue.shift(); next !== undefined; next = nodeFailed ? undefined : queue.shift()) {
      const id = next.row.id;
      const log = ctx.log.child({ payoutId: id });
      try {
        const outcome = await advanceClaimed({ ...d, ctx: { ...ctx, log } }, next, round, options);
        if (outcome === "completed") result.completed++;
        if (outcome === "failed") result.failed++;
        if (outcome === "float_low") result.waitingForFloat++;
      } catch (error) {
        if (isNodeCallError(error) && error.retryable) nodeFailed = true;
        log.warn({ err: error }, "payout step failed; retrying later");
        await releasePayout(ctx, owner, {
          id,
          delayMs: PAYOUT_RETRY_MS,
          lastError: error instanceof Error ? error.message : String(error),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PAYOUT_SEND_CONCURRENCY, queue.length) }, lane));
  for (const left of queue) await releasePayout(ctx, owner, { id: left.row.id, delayMs: PAYOUT_WAIT_MS });
  return result;
}

/** Advances one payout this worker has claimed ("lost" when it no longer holds it). */
export async function advancePayout(
  d: SweepDeps,
  id: string,
  options: SenderOptions = {},
  round: SendRound = newSendRound(d),
): Promise<Outcome> {
  const [claimed] = await loadClaimed(d.ctx, [id], d.owner);
  return claimed ? advanceClaimed(d, claimed, round, options) : "lost";
}

/** One payout's next step: wait for its live transaction, or sign, store and send a new one. */
async function advanceClaimed(
  d: SweepDeps,
  { row, live }: ClaimedPayout,
  round: SendRound,
  options: SenderOptions,
): Promise<Outcome> {
  const { ctx, owner } = d;
  const release = (r: Omit<Release, "id">) => releasePayout(ctx, owner, { id: row.id, ...r });
  if (live) {
    const landing = await awaitLanding(d, live, round);
    await options.onStep?.("waiting", row.id);
    if (landing.outcome === "waiting") await release(landing.release);
    return landing.outcome;
  }
  // Nothing live: sign a new transaction, after the float check (which reserves the amount in the
  // round until the transaction is stored, or gives it back).
  const signing = await signNew(d, row.address, row.amount, round);
  if (signing === "settling") {
    // Short only by transactions that may already be paid in the balance: look again soon.
    await release({ delayMs: PAYOUT_WAIT_MS });
    return "waiting";
  }
  if (signing === "float_low") {
    await release({
      delayMs: PAYOUT_FLOAT_WAIT_MS,
      lastError: FLOAT_LOW_MESSAGE,
      waitReason: FLOAT_LOW_REASON,
    });
    return "float_low";
  }
  const stored = await storeOnce(d, row.id, row.amount, signing, round, options);
  if (stored === "duplicate") {
    await release({ delayMs: PAYOUT_RETRY_MS, lastError: "its transaction's id was taken; signing again" });
    return "waiting";
  }
  if (stored === null) return "lost";
  await options.onStep?.("stored", row.id);
  await broadcast(d, stored);
  await options.onStep?.("broadcast", row.id);
  // On its way: the first look comes once a block or so could hold it.
  await options.onStep?.("waiting", row.id);
  await release({ delayMs: PAYOUT_WAIT_MS, tx: { kind: "sent", txHash: stored.txID } });
  return "waiting";
}

/**
 * The float check and the signature. Nothing is stored yet; the amount stays reserved in the round
 * until storeOnce has stored it or given it back.
 */
async function signNew(
  d: SweepDeps,
  to: string | null,
  amount: bigint,
  round: SendRound,
): Promise<Signing | "float_low" | "settling"> {
  if (to === null) throw new Error("an approved payout has no address");
  const float = await round.float();
  // Checked and reserved with no await in between, so the round's other lanes see the reservation.
  const check = floatCheck(float, round.reserved, amount);
  if (check === "float_low") {
    d.ctx.log.warn(
      {
        amount: formatAmount(amount),
        float: formatAmount(float.balance),
        committed: formatAmount(float.committed + round.reserved),
      },
      "payout waits: the hot wallet's USDT float is too small",
    );
  }
  if (check !== "covered") return check;
  round.reserved += amount;
  try {
    return await signTransfer(d, to, amount, round);
  } catch (error) {
    round.reserved -= amount;
    throw error;
  }
}

/**
 * Stores the signed transaction (see storeSigned). Another payout to the same address for the same
 * amount, signed against the same reference block with the same timestamp (another worker), is the
 * very same transaction: it is signed again with a later timestamp; the primary key refused the
 * copy, so nothing was stored twice. Returns what was stored, null when the payout was lost.
 */
async function storeOnce(
  d: SweepDeps,
  id: string,
  amount: bigint,
  signing: Signing,
  round: SendRound,
  options: SenderOptions,
): Promise<Signing["tx"] | "duplicate" | null> {
  let tx = signing.tx;
  let stored: number | "duplicate" = 0;
  try {
    await options.onStep?.("signed", id);
    stored = await storeSigned(d.ctx, d.owner, id, tx);
    for (let retry = 1; stored === "duplicate" && retry <= 3; retry++) {
      tx = signing.again(retry * 1_000 + round.signed++);
      stored = await storeSigned(d.ctx, d.owner, id, tx);
    }
  } finally {
    if (typeof stored !== "number" || stored === 0) round.reserved -= amount;
  }
  if (stored === "duplicate") return "duplicate";
  return stored === 0 ? null : tx;
}

async function awaitLanding(
  d: SweepDeps,
  live: LiveTx,
  round: SendRound,
): Promise<{ outcome: Outcome; release: Omit<Release, "id"> }> {
  const { ctx } = d;
  const wait = (block: number) => untilSolid(round, block, PAYOUT_WAIT_MS, PAYOUT_MAX_WAIT_MS);
  // The solidified head first (see the header): only then the lookup.
  const solidHead = await round.solidHead();
  const seenIn = live.block_number === null ? null : Number(live.block_number);
  if (seenIn !== null && seenIn > solidHead.number) {
    // In a block the solidified chain has not reached: nothing to look up yet.
    return { outcome: "waiting", release: { delayMs: await wait(seenIn) } };
  }
  const solid = await d.client.getTransactionInfoById(live.tx_hash, { solidified: true });
  if (solid) {
    const outcome = await finishPayout(ctx, live.payout_id, live.tx_hash, solid, chainFailure(solid));
    return { outcome, release: { delayMs: 0 } };
  }
  if (live.signed.raw_data.expiration < solidHead.timestamp) {
    // Missing past its expiration on this node: counted, and only on the second round in a row is
    // it marked expired, so the next round signs a new one (the only way a second transaction is
    // ever signed for a payout).
    if ((await noteMissing(ctx, "payout_transactions", live.tx_hash)) < MISSING_ROUNDS_TO_EXPIRE) {
      ctx.log.warn({ txHash: live.tx_hash }, "payout transaction missing past its expiration; looking again");
      return { outcome: "waiting", release: { delayMs: PAYOUT_WAIT_MS } };
    }
    await markExpired(ctx, live.tx_hash);
    ctx.log.warn(
      { txHash: live.tx_hash },
      "payout transaction expired without landing; a new one will be signed",
    );
    return { outcome: "waiting", release: { delayMs: 0 } };
  }
  const included = await d.client.getTransactionInfoById(live.tx_hash);
  if (!included) await rebroadcast(d, live.signed);
  const block = included?.blockNumber ?? null;
  const unchanged = block === seenIn && live.state === "sent";
  return {
    outcome: "waiting",
    release: {
      delayMs: block === null ? PAYOUT_WAIT_MS : await wait(block),
      tx: unchanged
        ? undefined
        : block === null
          ? { kind: "dropped", txHash: live.tx_hash }
          : { kind: "seen", txHash: live.tx_hash, block },
    },
  };
}
