/**
 * Sending approved refunds and payouts from the hot wallet: the orchestration of a round (DESIGN.md
 * 14; docs/payouts.md "Sending" walks through it). claim -> float check -> sign -> store (with the
 * move to `sending`, BEFORE the broadcast) -> broadcast -> look until solidified: completed, failed
 * on chain, or expired unseen (only then is a new transaction signed). A round signs and stores its
 * new transactions together (send-new.ts), ends the payouts it found solidified together
 * (finishPayouts) and writes every release in one statement at its end (payout-release.ts). The other reads and writes are payout-store.ts, the chain reads and the
 * signing payout-chain.ts, the float's rule payout-float.ts.
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
import { rebroadcast } from "../sweeps/sweep-chain.js";
import { MISSING_ROUNDS_TO_EXPIRE, noteMissing } from "../sweeps/missing-sightings.js";
import type { SweepDeps } from "../sweeps/sweep-types.js";
import { newSendRound, payoutDeps, untilSolid, type SendRound } from "./payout-chain.js";
import { releasePayouts, type Release } from "./payout-release.js";
import {
  claimDuePayouts,
  finishPayouts,
  loadClaimed,
  markExpired,
  type ClaimedPayout,
  type Landed,
  type LiveTx,
} from "./payout-store.js";
import {
  inLanes,
  PAYOUT_RETRY_MS,
  PAYOUT_SEND_CONCURRENCY,
  PAYOUT_WAIT_MS,
  sendFresh,
  type Outcome,
  type RoundLog,
  type SenderOptions,
} from "./send-new.js";

export { payoutDeps };
export type { SendStep, SenderOptions } from "./send-new.js";

export const PAYOUT_LEASE_MS = 60_000;
/** The longest wait for the solidified head to reach a transaction's block before looking again. */
export const PAYOUT_MAX_WAIT_MS = 60_000;

export interface SendResult {
  claimed: number;
  completed: number;
  failed: number;
  waitingForFloat: number;
}

/** Claims due payouts and advances each as far as the chain allows now, in one round. */
export async function runDuePayouts(ctx: Context, options: SenderOptions = {}): Promise<SendResult> {
  const result: SendResult = { claimed: 0, completed: 0, failed: 0, waitingForFloat: 0 };
  const owner = options.owner ?? `payout-sender-${process.pid}`;
  const d = payoutDeps(ctx, owner);
  if (!d) return result;
  const ids = await claimDuePayouts(
    ctx,
    owner,
    options.limit ?? 10,
    options.leaseMs ?? ctx.config.workerLeaseMs ?? PAYOUT_LEASE_MS,
  );
  result.claimed = ids.length;
  const claimed = await loadClaimed(ctx, ids, owner);
  const outcomes = await advanceRound(d, claimed, newSendRound(d), options, true);
  for (const outcome of outcomes.values()) {
    if (outcome === "completed") result.completed++;
    if (outcome === "failed") result.failed++;
    if (outcome === "float_low") result.waitingForFloat++;
  }
  return result;
}

/** Advances one payout this worker has claimed ("lost" when it no longer holds it); errors throw. */
export async function advancePayout(
  d: SweepDeps,
  id: string,
  options: SenderOptions = {},
  round: SendRound = newSendRound(d),
): Promise<Outcome> {
  const claimed = await loadClaimed(d.ctx, [id], d.owner);
  return (await advanceRound(d, claimed, round, options, false)).get(id) ?? "lost";
}

/**
 * One round: the payouts with a live transaction are looked at; the others are checked against the
 * float and signed, stored together (one database transaction) and only then broadcast. Every
 * release is written at the end, in one statement.
 */
async function advanceRound(
  d: SweepDeps,
  claimed: ClaimedPayout[],
  round: SendRound,
  options: SenderOptions,
  retryOnError: boolean,
): Promise<Map<string, Outcome>> {
  const { ctx, owner } = d;
  const log: RoundLog = {
    outcomes: new Map(),
    releases: [],
    nodeFailed: false,
    failed: (id, error) => {
      if (isNodeCallError(error) && error.retryable) log.nodeFailed = true;
      if (!retryOnError) throw error;
      ctx.log.warn({ err: error, payoutId: id }, "payout step failed; retrying later");
      const lastError = error instanceof Error ? error.message : String(error);
      log.releases.push({ id, delayMs: PAYOUT_RETRY_MS, lastError });
      log.outcomes.set(id, "waiting");
    },
  };
  const live = claimed.filter((c) => c.live !== undefined);
  const fresh = claimed.filter((c) => c.live === undefined).map((c) => c.row);
  const landed: Landed[] = [];
  const look = async () => {
    await inLanes(
      live,
      PAYOUT_SEND_CONCURRENCY,
      async ({ row, live: tx }) => {
        try {
          const landing = await awaitLanding(d, tx as LiveTx, round);
          if ("landed" in landing) {
            landed.push(landing.landed);
            return;
          }
          await options.onStep?.("waiting", row.id);
          if (landing.outcome === "waiting") log.releases.push({ id: row.id, ...landing.release });
          log.outcomes.set(row.id, landing.outcome);
        } catch (error) {
          log.failed(row.id, error);
        }
      },
      () => log.nodeFailed,
    );
    // Every payout the round found solidified ends in one database transaction.
    await finishLanded(d, landed, options, log);
  };
  await Promise.all([look(), sendFresh(d, fresh, round, options, log)]);
  for (const { row } of claimed) {
    if (!log.outcomes.has(row.id)) log.releases.push({ id: row.id, delayMs: PAYOUT_WAIT_MS });
  }
  await releasePayouts(ctx, owner, log.releases);
  return log.outcomes;
}

/** Ends the round's solidified payouts together (finishPayouts); a failure retries each later. */
async function finishLanded(d: SweepDeps, landed: Landed[], options: SenderOptions, log: RoundLog) {
  if (landed.length === 0) return;
  let outcomes: Map<string, Outcome>;
  try {
    outcomes = await finishPayouts(d.ctx, landed);
  } catch (error) {
    for (const { id } of landed) log.failed(id, error);
    return;
  }
  for (const { id } of landed) {
    log.outcomes.set(id, outcomes.get(id) ?? "lost");
    try {
      await options.onStep?.("waiting", id);
    } catch (error) {
      log.failed(id, error);
    }
  }
}

type Landing = { landed: Landed } | { outcome: Outcome; release: Omit<Release, "id"> };

async function awaitLanding(d: SweepDeps, live: LiveTx, round: SendRound): Promise<Landing> {
  const { ctx } = d;
  const wait = async (block: number) => {
    const now = ctx.clock.now().getTime();
    return {
      delayMs: 0,
      dueAtMs: now + (await untilSolid(round, block, PAYOUT_WAIT_MS, PAYOUT_MAX_WAIT_MS, now)),
    };
  };
  // The solidified head first (see the header): only then the lookup.
  const solidHead = await round.solidHead();
  const seenIn = live.block_number === null ? null : Number(live.block_number);
  if (seenIn !== null && seenIn > solidHead.number) {
    // In a block the solidified chain has not reached: nothing to look up yet.
    return { outcome: "waiting", release: await wait(seenIn) };
  }
  const solid = await d.client.getTransactionInfoById(live.tx_hash, { solidified: true });
  if (solid) {
    return { landed: { id: live.payout_id, txHash: live.tx_hash, info: solid, failed: chainFailure(solid) } };
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
      ...(block === null ? { delayMs: PAYOUT_WAIT_MS } : await wait(block)),
      tx: unchanged
        ? undefined
        : block === null
          ? { kind: "dropped", txHash: live.tx_hash }
          : { kind: "seen", txHash: live.tx_hash, block },
    },
  };
}
