/**
 * Sending approved refunds and payouts from the hot wallet (DESIGN.md 14), on the sweeper's
 * sign-store-broadcast-wait machinery (src/sweeps/sweep-chain.ts: reference block, broadcast,
 * balance reads, fee limit):
 *
 *   claim   approved/sending payouts, FOR UPDATE SKIP LOCKED, under a lease (any number of workers)
 *   float   the hot wallet's USDT must cover this payout and every other one whose transaction is
 *           live; otherwise the payout waits and `payout_float_low` fires
 *   sign    a USDT transfer hot -> destination, built and signed locally
 *   store   the signed bytes (payout_transactions) and the payout -> sending, in one transaction,
 *           BEFORE the broadcast; a unique index allows one live (signed/sent) transaction per payout
 *   send    broadcast; a restart re-broadcasts the stored bytes
 *   wait    solidified with SUCCESS -> completed (tx hash, TRX burnt from the transaction info,
 *           reservation settled); REVERT / OUT_OF_ENERGY -> failed (reservation released);
 *           expired and absent from the solidified chain -> marked expired, and only then is a
 *           new transaction signed.
 *
 * "Expired" is judged against the solidified head read BEFORE looking the transaction up in the
 * solidified chain: any block that could hold it has a timestamp at or before its expiration, so
 * it is at or below that head, and the lookup that follows would have found it.
 *
 * One round (runDuePayouts) shares its chain reads: the solidified head, the head block (the
 * reference block of every transaction it signs), the chain's prices and the float (the hot
 * wallet's balance and what is committed, read once; each payout the round stores is added to it).
 * A transaction seen in block B is not looked up again while the solidified head is below B: the
 * next look is timed for when the solidified head should reach B, so a payout on its way costs
 * two or three lookups instead of one every few seconds.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { formatAmount } from "../money.js";
import { broadcast, refBlock, usdtBalance } from "../sweeps/sweep-chain.js";
import { sweepFeeLimit } from "../sweeps/sweep-plan.js";
import type { SweepDeps } from "../sweeps/sweep-types.js";
import { encodeTransfer } from "@stablegate/tron/abi";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import type { TransactionInfo } from "@stablegate/tron/node-types";
import type { TransactionJson } from "@stablegate/tron/protobuf";
import { signTransaction } from "@stablegate/tron/sign";
import { buildTriggerSmartContract, type RefBlock } from "@stablegate/tron/transaction";
import { payouts } from "../db/schema.js";
import { eq } from "drizzle-orm";
import { FLOAT_LOW_MESSAGE, type PayoutRow } from "./payout-types.js";
import { transitionPayout } from "./transition-payout.js";

export const PAYOUT_LEASE_MS = 60_000;
/** How soon to look again at a transaction on its way to the solidified chain (at the least). */
export const PAYOUT_WAIT_MS = 3_000;
/** The longest wait for the solidified head to reach a transaction's block before looking again. */
export const PAYOUT_MAX_WAIT_MS = 60_000;
/** How long a round reuses the head block as the reference block of what it signs. */
const REF_BLOCK_REUSE_MS = 5_000;
/**
 * Payouts of one round advanced at once. A send is mostly waiting (the node, and the commit of the
 * stored transaction before its broadcast), so a few at a time keep a worker busy; each payout's
 * own steps stay in order, and the float check reserves synchronously (see signNew).
 */
export const PAYOUT_SEND_CONCURRENCY = 5;
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

/** The hot wallet and the node, or null where this process cannot send (no key, no USDT contract). */
export function payoutDeps(ctx: Context, owner: string): SweepDeps | null {
  const key = ctx.config.hotWalletPrivateKey;
  const usdt = ctx.chain.usdtContract;
  if (!key || !usdt) return null;
  const hotAddress = addressFromPrivateKey(key);
  return {
    ctx,
    client: ctx.chain.client,
    usdt,
    cold: ctx.config.coldWalletAddress ?? hotAddress,
    hotKey: key,
    hotAddress,
    mnemonic: "",
    owner,
  };
}

interface LiveTx extends Record<string, unknown> {
  tx_hash: string;
  attempt: number;
  state: "signed" | "sent";
  signed: TransactionJson;
  /** The block the sender last saw it in (not yet solidified), or null. */
  block_number: string | null;
}

async function liveTransaction(ctx: Context, payoutId: string): Promise<LiveTx | undefined> {
  const [row] = await queryRows<LiveTx>(
    ctx.db,
    sql`SELECT tx_hash, attempt, state, signed, block_number::text AS block_number FROM payout_transactions
        WHERE payout_id = ${payoutId}::uuid AND state IN ('signed', 'sent')`,
  );
  return row;
}

function memo<T>(read: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= read();
    // A failed read is read again by the next caller instead of failing the round's every payout.
    value.catch(() => (value = undefined));
    return value;
  };
}

interface Head {
  number: number;
  timestamp: number;
}

function headOf(block: { block_header: { raw_data: { number?: number; timestamp?: number } } }): Head {
  return {
    number: block.block_header.raw_data.number ?? 0,
    timestamp: block.block_header.raw_data.timestamp ?? 0,
  };
}

/**
 * The chain reads one round shares (see the header). Each is read when first needed; the head
 * block is read again once it is REF_BLOCK_REUSE_MS old, so what the round signs late in a long
 * round still has most of its 60 s before expiration.
 */
export interface SendRound {
  solidHead: () => Promise<Head>;
  head: () => Promise<RefBlock & { timestamp: number }>;
  prices: () => Promise<{ energyPriceSun: bigint; bandwidthPriceSun: bigint }>;
  float: () => Promise<Float>;
  /** What this round stored, on top of the float's `committed`. */
  storedInRound: bigint;
  /** Transactions this round signed: each one's timestamp is the reference block's + this count. */
  signed: number;
}

export function newSendRound(d: SweepDeps): SendRound {
  let head: { at: number; block: Promise<RefBlock & { timestamp: number }> } | undefined;
  return {
    solidHead: memo(async () => headOf(await d.client.getSolidifiedNowBlock())),
    head: () => {
      if (!head || Date.now() - head.at > REF_BLOCK_REUSE_MS) {
        const block = refBlock(d);
        head = { at: Date.now(), block };
        block.catch(() => (head = undefined));
      }
      return head.block;
    },
    prices: memo(async () => {
      const params = await d.client.getChainParameters();
      return {
        energyPriceSun: BigInt(params.getEnergyFee ?? 420),
        bandwidthPriceSun: BigInt(params.getTransactionFee ?? 1000),
      };
    }),
    float: memo(() => readFloat(d)),
    storedInRound: 0n,
    signed: 0,
  };
}

/**
 * The hot wallet's USDT and the money already committed to the chain but not visible in that
 * balance (read from the head): every live transaction and those solidified after the read, unless
 * the sender had already seen it in a block before the read (the balance has paid it then; counting
 * it too made a tight float wait and alert for the ~19 blocks to solidification).
 */
interface Float {
  balance: bigint;
  committed: bigint;
  /** The part of `committed` broadcast but not yet seen in a block: it may be paid in `balance` too. */
  unseen: bigint;
}

async function readFloat(d: SweepDeps): Promise<Float> {
  const at = d.ctx.clock.now().toISOString();
  const balance = await usdtBalance(d, d.hotAddress);
  const [pending] = await queryRows<{ total: string; unseen: string }>(
    d.ctx.db,
    sql`SELECT coalesce(sum(p.amount), 0)::text AS total,
               coalesce(sum(p.amount) FILTER (WHERE t.state = 'sent' AND t.included_at IS NULL), 0)::text AS unseen
        FROM payout_transactions t JOIN payouts p ON p.id = t.payout_id
        WHERE (t.state IN ('signed', 'sent') OR (t.state = 'solid' AND t.landed_at >= ${at}::timestamptz))
          AND (t.included_at IS NULL OR t.included_at >= ${at}::timestamptz)`,
  );
  return { balance, committed: BigInt(pending?.total ?? "0"), unseen: BigInt(pending?.unseen ?? "0") };
}

/** Claims up to `limit` due payouts for this worker. */
export async function claimDuePayouts(ctx: Context, owner: string, limit: number, leaseMs = PAYOUT_LEASE_MS) {
  const now = ctx.clock.now();
  return queryRows<{ id: string }>(
    ctx.db,
    sql`UPDATE payouts SET lease_owner = ${owner},
          lease_expires_at = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
        WHERE id IN (
          SELECT id FROM payouts
          WHERE status IN ('approved', 'sending')
            AND (next_attempt_at IS NULL OR next_attempt_at <= ${now.toISOString()}::timestamptz)
            AND (lease_expires_at IS NULL OR lease_expires_at <= ${now.toISOString()}::timestamptz)
          ORDER BY approved_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING id::text AS id`,
  );
}

/** Claims due payouts and advances each as far as the chain allows now, in one round. */
export async function runDuePayouts(ctx: Context, options: SenderOptions = {}): Promise<SendResult> {
  const result: SendResult = { claimed: 0, completed: 0, failed: 0, waitingForFloat: 0 };
  const owner = options.owner ?? `payout-sender-${process.pid}`;
  const d = payoutDeps(ctx, owner);
  if (!d) return result;
  const claimed = await claimDuePayouts(ctx, owner, options.limit ?? 10, options.leaseMs);
  result.claimed = claimed.length;
  const round = newSendRound(d);
  const queue = claimed.map(({ id }) => id);
  const lane = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const log = ctx.log.child({ payoutId: id });
      try {
        const outcome = await advancePayout({ ...d, ctx: { ...ctx, log } }, id, options, round);
        if (outcome === "completed") result.completed++;
        if (outcome === "failed") result.failed++;
        if (outcome === "float_low") result.waitingForFloat++;
      } catch (error) {
        log.warn({ err: error }, "payout step failed; retrying later");
        await release(ctx, id, owner, PAYOUT_RETRY_MS, {
          lastError: error instanceof Error ? error.message : String(error),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PAYOUT_SEND_CONCURRENCY, queue.length) }, lane));
  return result;
}

/**
 * Gives the lease back and schedules the next look; `txUpdate` (what the sender learnt about the
 * live transaction) is written by the same statement, one commit.
 */
async function release(
  ctx: Context,
  id: string,
  owner: string,
  delayMs: number,
  extra: { lastError?: string; txUpdate?: SQL } = {},
) {
  const next = new Date(ctx.clock.now().getTime() + delayMs);
  await ctx.db.execute(
    sql`${extra.txUpdate ? sql`WITH tx AS (${extra.txUpdate}) ` : sql``}
        UPDATE payouts SET lease_owner = NULL, lease_expires_at = NULL,
          next_attempt_at = ${next.toISOString()}::timestamptz
          ${extra.lastError === undefined ? sql`` : sql`, last_error = ${extra.lastError.slice(0, 500)}`}
        WHERE id = ${id}::uuid AND lease_owner = ${owner}`,
  );
}

async function loadOwned(ctx: Context, id: string, owner: string): Promise<PayoutRow | undefined> {
  const [row] = await ctx.db.select().from(payouts).where(eq(payouts.id, id));
  if (!row || row.leaseOwner !== owner) return undefined;
  return row;
}

type Outcome = "completed" | "failed" | "float_low" | "waiting" | "lost";

export async function advancePayout(
  d: SweepDeps,
  id: string,
  options: SenderOptions = {},
  round: SendRound = newSendRound(d),
): Promise<Outcome> {
  const { ctx, owner } = d;
  const row = await loadOwned(ctx, id, owner);
  if (!row || (row.status !== "approved" && row.status !== "sending")) return "lost";
  const live = await liveTransaction(ctx, id);
  if (live) {
    const landing = await awaitLanding(d, row, live, round);
    await options.onStep?.("waiting", id);
    if (landing.outcome === "waiting") {
      await release(ctx, id, owner, landing.nextLookMs, { txUpdate: landing.txUpdate });
    }
    return landing.outcome;
  }
  // Nothing live: sign a new transaction, after the float check (which reserves the amount in the
  // round until the transaction is stored, or gives it back).
  let stored: number | "duplicate" = 0;
  let signed = await signNew(d, row, round);
  if (signed === "settling") {
    // Short only by transactions that may already be paid in the balance: look again soon.
    await release(ctx, id, owner, PAYOUT_WAIT_MS);
    return "waiting";
  }
  if (signed === "float_low") {
    await release(ctx, id, owner, PAYOUT_FLOAT_WAIT_MS, {
      lastError: `${FLOAT_LOW_MESSAGE}; waiting for a top-up`,
    });
    return "float_low";
  }
  try {
    await options.onStep?.("signed", id);
    stored = await store(d, row, signed.tx);
    // Another payout to the same address for the same amount, signed against the same reference
    // block with the same timestamp (another worker), is the very same transaction: sign again with
    // a later timestamp. The primary key refused the copy, so nothing was stored twice.
    for (let retry = 1; stored === "duplicate" && retry <= 3; retry++) {
      signed = { ...signed, tx: signed.again(retry * 1_000 + round.signed++) };
      stored = await store(d, row, signed.tx);
    }
  } finally {
    if (typeof stored !== "number" || stored === 0) round.storedInRound -= row.amount;
  }
  if (stored === "duplicate") {
    await release(ctx, id, owner, PAYOUT_RETRY_MS, {
      lastError: "its transaction's id was taken; signing again",
    });
    return "waiting";
  }
  if (!stored) return "lost";
  await options.onStep?.("stored", id);
  await broadcast(d, signed.tx);
  await options.onStep?.("broadcast", id);
  // On its way: the first look comes once a block or so could hold it.
  await options.onStep?.("waiting", id);
  await release(ctx, id, owner, PAYOUT_WAIT_MS, { txUpdate: markSent(signed.tx.txID) });
  return "waiting";
}

/** A signed transfer, and the same transfer signed with its timestamp moved by `bump` ms. */
interface Signing {
  tx: TransactionJson;
  again: (bump: number) => TransactionJson;
}

/** The float check and the signature. Nothing is stored yet. */
async function signNew(
  d: SweepDeps,
  row: PayoutRow,
  round: SendRound,
): Promise<Signing | "float_low" | "settling"> {
  const { ctx } = d;
  if (row.address === null) throw new Error("an approved payout has no address");
  const { balance, committed, unseen } = await round.float();
  // Checked and reserved with no await in between, so the round's other lanes see the reservation.
  const owed = committed + round.storedInRound;
  if (balance - owed < row.amount) {
    // Transactions broadcast but not yet seen in a block may be paid in the balance already (read
    // at the head) and are counted again in `owed`. If the float covers the payout without them,
    // the shortage may be only that: the next look at them settles it, so no alert and no top-up
    // wait yet. A real shortage is still one once they are seen (or expire).
    if (balance - (owed - unseen) >= row.amount) return "settling";
    ctx.log.warn(
      { amount: formatAmount(row.amount), float: formatAmount(balance), committed: formatAmount(owed) },
      "payout waits: the hot wallet's USDT float is too small",
    );
    return "float_low";
  }
  round.storedInRound += row.amount;
  try {
    return await signReserved(d, row.address, row.amount, round);
  } catch (error) {
    round.storedInRound -= row.amount;
    throw error;
  }
}

async function signReserved(d: SweepDeps, to: string, amount: bigint, round: SendRound): Promise<Signing> {
  const data = encodeTransfer(to, amount);
  const [energy, prices, ref] = await Promise.all([
    d.client.estimateEnergy({ owner: d.hotAddress, contract: d.usdt, data }),
    round.prices(),
    round.head(),
  ]);
  const feeLimit = sweepFeeLimit({ energy: BigInt(energy), ...prices });
  // The timestamp is the reference block's plus a count of the round's signatures, so two payouts
  // of one amount to one address are two transactions, never one id.
  const again = (bump: number) =>
    signTransaction(
      buildTriggerSmartContract({
        owner: d.hotAddress,
        contract: d.usdt,
        data,
        feeLimit,
        refBlock: ref,
        nowMs: ref.timestamp,
        timestampMs: ref.timestamp + bump,
      }),
      d.hotKey,
    );
  return { tx: again(round.signed++), again };
}

/**
 * Stores the signed transaction and moves the payout to `sending`, in one transaction, only while
 * this worker still holds the lease and no other transaction of the payout is live (the unique
 * index refuses a second one). Returns the attempt number, 0 when it lost the payout, or "duplicate"
 * when the very same transaction (another payout's, same bytes) is stored already.
 */
async function store(d: SweepDeps, row: PayoutRow, signed: TransactionJson): Promise<number | "duplicate"> {
  const { ctx, owner } = d;
  try {
    return await ctx.db.transaction(async (tx) => {
      const [locked] = await tx.select().from(payouts).where(eq(payouts.id, row.id)).for("update");
      if (
        !locked ||
        locked.leaseOwner !== owner ||
        (locked.status !== "approved" && locked.status !== "sending")
      ) {
        return 0;
      }
      const attempt = locked.attempts + 1;
      const now = ctx.clock.now();
      await tx.execute(
        sql`INSERT INTO payout_transactions (tx_hash, payout_id, attempt, signed, expiration_ms, mode, state, created_at)
            VALUES (${signed.txID}, ${row.id}::uuid, ${attempt}, ${JSON.stringify(signed)}::jsonb,
                    ${signed.raw_data.expiration}, ${ctx.config.sweepMode}, 'signed', ${now.toISOString()}::timestamptz)`,
      );
      if (locked.status === "approved") {
        await transitionPayout(ctx, tx, {
          payout: locked,
          to: "sending",
          event: `${locked.kind}_sending`,
          payload: { tx_hash: signed.txID, attempt },
          patch: { attempts: attempt, txHash: signed.txID, sentAt: now, lastError: null },
        });
      } else {
        await tx
          .update(payouts)
          .set({ attempts: attempt, txHash: signed.txID, updatedAt: now, lastError: null })
          .where(eq(payouts.id, row.id));
        await tx.execute(
          sql`INSERT INTO payout_events (id, payout_id, event_type, from_status, to_status, payload, created_at)
              VALUES (gen_random_uuid(), ${row.id}::uuid, ${`${locked.kind}_resigned`}, 'sending', 'sending',
                      ${JSON.stringify({ tx_hash: signed.txID, attempt })}::jsonb, ${now.toISOString()}::timestamptz)`,
        );
      }
      return attempt;
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; constraint?: string } }).cause;
    if (cause?.code === "23505") return cause.constraint === "payout_transactions_pkey" ? "duplicate" : 0;
    throw error;
  }
}

/** Marks a stored transaction broadcast (written with the release that follows). */
function markSent(txHash: string): SQL {
  return sql`UPDATE payout_transactions SET state = 'sent' WHERE tx_hash = ${txHash} AND state = 'signed'`;
}

function chainFailure(info: TransactionInfo): string | null {
  const result = info.receipt?.result;
  if (info.result === "FAILED" || (result !== undefined && result !== "SUCCESS")) return result ?? "FAILED";
  return null;
}

/**
 * When the solidified head should reach `block`: the blocks still to go at the pace the chain shows
 * between the solidified head and the head, within PAYOUT_WAIT_MS..PAYOUT_MAX_WAIT_MS.
 */
async function untilSolid(round: SendRound, block: number): Promise<number> {
  const [solid, head] = await Promise.all([round.solidHead(), round.head()]);
  const headNumber = Number(head.number);
  const perBlock =
    headNumber > solid.number ? (head.timestamp - solid.timestamp) / (headNumber - solid.number) : 0;
  const ms = Math.ceil((block - solid.number) * perBlock);
  return Math.min(PAYOUT_MAX_WAIT_MS, Math.max(PAYOUT_WAIT_MS, Number.isFinite(ms) ? ms : 0));
}

async function awaitLanding(
  d: SweepDeps,
  row: PayoutRow,
  live: LiveTx,
  round: SendRound,
): Promise<{ outcome: Outcome; nextLookMs: number; txUpdate?: SQL }> {
  const { ctx } = d;
  // The solidified head first (see the header): only then the lookup.
  const solidHead = await round.solidHead();
  const seenIn = live.block_number === null ? null : Number(live.block_number);
  if (seenIn !== null && seenIn > solidHead.number) {
    // In a block the solidified chain has not reached: nothing to look up yet.
    return { outcome: "waiting", nextLookMs: await untilSolid(round, seenIn) };
  }
  const solid = await d.client.getTransactionInfoById(live.tx_hash, { solidified: true });
  if (solid) return { outcome: await finish(d, row, live, solid), nextLookMs: 0 };
  if (live.signed.raw_data.expiration < solidHead.timestamp) {
    // It can never land: marked expired, so the next round signs a new one (the only way a second
    // transaction is ever signed for a payout).
    await ctx.db.execute(
      sql`UPDATE payout_transactions SET state = 'expired' WHERE tx_hash = ${live.tx_hash} AND state IN ('signed', 'sent')`,
    );
    ctx.log.warn(
      { txHash: live.tx_hash },
      "payout transaction expired without landing; a new one will be signed",
    );
    return { outcome: "waiting", nextLookMs: 0 };
  }
  const included = await d.client.getTransactionInfoById(live.tx_hash);
  if (!included) await broadcast(d, live.signed);
  // Sent; seen in a block now (included_at kept from the first sighting), or in none (a fork
  // dropped it). Written with the release.
  const block = included?.blockNumber ?? null;
  const txUpdate =
    block === seenIn && live.state === "sent"
      ? undefined
      : block !== null
        ? sql`UPDATE payout_transactions SET state = 'sent', block_number = ${block},
                included_at = coalesce(included_at, ${ctx.clock.now().toISOString()}::timestamptz)
              WHERE tx_hash = ${live.tx_hash} AND state IN ('signed', 'sent')`
        : sql`UPDATE payout_transactions SET state = 'sent', block_number = NULL, included_at = NULL
              WHERE tx_hash = ${live.tx_hash} AND state IN ('signed', 'sent')`;
  return {
    outcome: "waiting",
    nextLookMs: block === null ? PAYOUT_WAIT_MS : await untilSolid(round, block),
    txUpdate,
  };
}

async function finish(d: SweepDeps, row: PayoutRow, live: LiveTx, info: TransactionInfo): Promise<Outcome> {
  const { ctx } = d;
  const failed = chainFailure(info);
  const fee = BigInt(info.fee ?? 0);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(payouts).where(eq(payouts.id, row.id)).for("update");
    if (!locked || locked.status !== "sending") return "lost";
    await tx.execute(
      sql`UPDATE payout_transactions SET state = ${failed ? "failed" : "solid"}, result = ${failed ?? "SUCCESS"},
            fee_sun = ${fee.toString()}::numeric,
            energy_fee_sun = ${String(info.receipt?.energy_fee ?? 0)}::numeric,
            net_fee_sun = ${String(info.receipt?.net_fee ?? 0)}::numeric,
            energy_used = ${String(info.receipt?.energy_usage_total ?? 0)}::bigint,
            net_usage = ${String(info.receipt?.net_usage ?? 0)}::bigint,
            block_number = ${info.blockNumber ?? null}, landed_at = ${now.toISOString()}::timestamptz
          WHERE tx_hash = ${live.tx_hash}`,
    );
    const burnt = BigInt(
      (
        await queryRows<{ total: string }>(
          tx,
          sql`SELECT coalesce(sum(fee_sun), 0)::text AS total FROM payout_transactions WHERE payout_id = ${row.id}::uuid`,
        )
      )[0]?.total ?? "0",
    );
    const common = {
      txHash: live.tx_hash,
      trxBurntSun: burnt,
      energyUsed: BigInt(info.receipt?.energy_usage_total ?? 0),
      leaseOwner: null,
      leaseExpiresAt: null,
    };
    if (failed) {
      await transitionPayout(ctx, tx, {
        payout: locked,
        to: "failed",
        event: `${locked.kind}_failed`,
        payload: { tx_hash: live.tx_hash, reason: failed, trx_burnt: formatAmount(burnt) },
        patch: { ...common, failedAt: now, lastError: `transaction failed on chain: ${failed}` },
      });
      ctx.log.error({ txHash: live.tx_hash, reason: failed }, "payout failed on chain; reservation released");
      return "failed";
    }
    await transitionPayout(ctx, tx, {
      payout: locked,
      to: "completed",
      event: `${locked.kind}_completed`,
      payload: {
        tx_hash: live.tx_hash,
        trx_burnt: formatAmount(burnt),
        block_number: info.blockNumber ?? null,
      },
      patch: { ...common, completedAt: now, lastError: null },
    });
    ctx.log.info({ txHash: live.tx_hash, amount: formatAmount(locked.amount) }, "payout completed");
    return "completed";
  });
}
