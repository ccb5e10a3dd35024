/**
 * A send round's new transactions (DESIGN.md 14): the float check and the signature of each payout
 * with nothing live, then every signed transaction stored in one database transaction with the
 * payouts' move to `sending` (storeSigned), and only then each broadcast. The releases go into the
 * round's log, which send-payouts.ts writes in one statement at the end of the round.
 */
import { formatAmount } from "../money.js";
import { broadcast } from "../sweeps/sweep-chain.js";
import type { SweepDeps } from "../sweeps/sweep-types.js";
import { signTransfer, type SendRound, type Signing } from "./payout-chain.js";
import { FLOAT_LOW_MESSAGE, FLOAT_LOW_REASON, floatCheck } from "./payout-float.js";
import type { Release } from "./payout-release.js";
import { storeSigned } from "./payout-store.js";
import type { PayoutRow } from "./payout-types.js";

/** How soon to look again at a transaction on its way to the solidified chain (at the least). */
export const PAYOUT_WAIT_MS = 3_000;
/**
 * Payouts of one round advanced at once in each phase (looks, signatures, broadcasts): a round is
 * mostly waiting on the node, so as many at a time as the node client has connections; each
 * payout's own steps stay in order, and the float check reserves synchronously (see signNew).
 */
export const PAYOUT_SEND_CONCURRENCY = 16;
/**
 * How soon a payout the float covers but for transactions that may be paid in the balance already
 * ("settling") checks again: their looks are timed for when their blocks solidify, so the next
 * round's read usually finds them recorded.
 */
export const PAYOUT_SETTLE_MS = 1_000;
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

export type Outcome = "completed" | "failed" | "float_low" | "waiting" | "lost";

/** Runs `step` over `items`, at most `width` at a time, in order; none is started once `stop()`. */
export async function inLanes<T>(
  items: readonly T[],
  width: number,
  step: (item: T) => Promise<void>,
  stop: () => boolean,
) {
  const queue = [...items];
  const lane = async () => {
    for (let next = queue.shift(); next !== undefined && !stop(); next = queue.shift()) await step(next);
  };
  await Promise.all(Array.from({ length: Math.min(width, queue.length) }, lane));
}

/** What a round decided per payout, and the releases it writes at its end. */
export interface RoundLog {
  outcomes: Map<string, Outcome>;
  releases: Release[];
  /** A payout's step failed: released with a retry (a round of runDuePayouts), or thrown. */
  failed: (id: string, error: unknown) => void;
  /** The round's node failed: the round ends; what it has not reached waits for the next round. */
  nodeFailed: boolean;
}

/** Signs what the float covers, stores it all in one transaction, then broadcasts each. */
export async function sendFresh(
  d: SweepDeps,
  fresh: PayoutRow[],
  round: SendRound,
  options: SenderOptions,
  log: RoundLog,
): Promise<void> {
  const signed: { row: PayoutRow; signing: Signing }[] = [];
  // In lanes for the node's energy estimates; the float check reserves with no await in between.
  const stop = () => log.nodeFailed;
  await inLanes(
    fresh,
    PAYOUT_SEND_CONCURRENCY,
    async (row) => {
      try {
        const signing = await signNew(d, row.address, row.amount, round);
        if (signing === "settling") {
          // Short only by transactions that may already be paid in the balance: look again soon.
          log.releases.push({ id: row.id, delayMs: PAYOUT_SETTLE_MS });
          log.outcomes.set(row.id, "waiting");
        } else if (signing === "float_low") {
          log.releases.push({
            id: row.id,
            delayMs: PAYOUT_FLOAT_WAIT_MS,
            lastError: FLOAT_LOW_MESSAGE,
            waitReason: FLOAT_LOW_REASON,
          });
          log.outcomes.set(row.id, "float_low");
        } else {
          signed.push({ row, signing });
        }
      } catch (error) {
        log.failed(row.id, error);
      }
    },
    stop,
  );
  if (log.nodeFailed) return; // nothing stored: the signatures are dropped
  const stored = await storeRound(d, signed, round, options, log);
  await inLanes(
    stored,
    PAYOUT_SEND_CONCURRENCY,
    async ({ row, tx }) => {
      try {
        await options.onStep?.("stored", row.id);
        await broadcast(d, tx);
        await options.onStep?.("broadcast", row.id);
        // On its way: the first look comes once a block or so could hold it.
        await options.onStep?.("waiting", row.id);
        log.releases.push({ id: row.id, delayMs: PAYOUT_WAIT_MS, tx: { kind: "sent", txHash: tx.txID } });
        log.outcomes.set(row.id, "waiting");
      } catch (error) {
        log.failed(row.id, error);
      }
    },
    stop,
  );
}

/**
 * Stores the round's signed transactions (see storeSigned) and gives back the reservation of each
 * that was not stored. Another payout to the same address for the same amount, signed against the
 * same reference block with the same timestamp (another worker), is the very same transaction: it
 * is signed again with a later timestamp; the primary key refused the copy, so nothing was stored
 * twice. Returns what was stored.
 */
async function storeRound(
  d: SweepDeps,
  signed: { row: PayoutRow; signing: Signing }[],
  round: SendRound,
  options: SenderOptions,
  log: RoundLog,
): Promise<{ row: PayoutRow; tx: Signing["tx"] }[]> {
  const done: { row: PayoutRow; tx: Signing["tx"] }[] = [];
  let pending = signed.map((s) => ({ ...s, tx: s.signing.tx }));
  for (let retry = 1; pending.length > 0; retry++) {
    const batch = pending;
    pending = [];
    let results: Map<string, number | "duplicate">;
    try {
      if (retry === 1) for (const { row } of batch) await options.onStep?.("signed", row.id);
      results = await storeSigned(
        d.ctx,
        d.owner,
        batch.map(({ row, tx }) => ({ id: row.id, signed: tx })),
      );
    } catch (error) {
      for (const { row } of batch) round.reserved -= row.amount;
      for (const { row } of batch) log.failed(row.id, error);
      return done;
    }
    for (const item of batch) {
      const result = results.get(item.row.id) ?? 0;
      if (typeof result === "number" && result > 0) {
        done.push(item);
        continue;
      }
      if (result === "duplicate" && retry <= 3) {
        pending.push({ ...item, tx: item.signing.again(retry * 1_000 + round.signed++) });
        continue;
      }
      round.reserved -= item.row.amount;
      if (result === "duplicate") {
        const lastError = "its transaction's id was taken; signing again";
        log.releases.push({ id: item.row.id, delayMs: PAYOUT_RETRY_MS, lastError });
      }
      log.outcomes.set(item.row.id, result === "duplicate" ? "waiting" : "lost");
    }
  }
  return done;
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
