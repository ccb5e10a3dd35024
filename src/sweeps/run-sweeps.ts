/**
 * The sweeper (DESIGN.md 7, burn mode): moves each confirmed order's USDT from its deposit address to
 * COLD_WALLET_ADDRESS. A settlement walks these steps, one claim at a time, under a lease:
 *
 *   fund        read the USDT balance, estimate the transfer's energy at the chain's prices, and
 *               sign a TRX transfer of exactly what is missing from the hot wallet (skipped when the
 *               address holds enough TRX already)
 *   fund_sent   wait until that transfer is in the solidified chain
 *   sweep       sign the transfer of the whole USDT balance with the address's derived key
 *   sweep_sent  wait until it is solidified with a SUCCESS receipt -> completed, `sweep_completed`
 *
 * Every transaction is built and signed here (never by a node) and stored with its step before it
 * is broadcast, so a crash between the two re-broadcasts the same signed bytes on the next run
 * instead of paying twice. A transaction that expired unseen can never land and is built again.
 * Failures back off; after SWEEP_MAX_ATTEMPTS the settlement is failed with `sweep_failed`
 * {reason, attempt, step}, and an operator can retry-sweep it. Node outages do not use up attempts.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";
import { formatAmount } from "../money.js";
import { appendOrderEvent } from "../orders/transitions.js";
import { encodeBalanceOf, encodeTransfer } from "../tron/abi.js";
import { addressFromPrivateKey } from "../tron/address.js";
import { derivePrivateKey } from "../tron/hd.js";
import type { NodeClient } from "../tron/node-client.js";
import { TronNodeError } from "../tron/node-errors.js";
import type { TransactionJson } from "../tron/protobuf.js";
import { signTransaction } from "../tron/sign.js";
import { buildTriggerSmartContract, buildTrxTransfer, type RefBlock } from "../tron/transaction.js";
import {
  SWEEP_MAX_ATTEMPTS,
  planFunding,
  sweepBackoffMs,
  sweepFeeLimit,
  type ChainPrices,
} from "./sweep-plan.js";

export const SWEEP_LEASE_MS = 120_000;
/** How soon to look again at a transaction waiting for the solidified chain. */
export const SWEEP_WAIT_MS = 3_000;
/** How soon to try again when the node itself failed (does not count as an attempt). */
export const SWEEP_NODE_RETRY_MS = 10_000;
const FRESH_ACCOUNT_FREE_BANDWIDTH = 600n;

export type SweepStep = "fund" | "fund_sent" | "sweep" | "sweep_sent";

interface SettlementRow extends Record<string, unknown> {
  id: string;
  order_id: string;
  address: string;
  step: string | null;
  attempts: number;
  amount: string | null;
  fee_trx: string | null;
  fee_tx_hash: string | null;
  fee_tx_signed: TransactionJson | null;
  sweep_tx_hash: string | null;
  sweep_tx_signed: TransactionJson | null;
  derivation_index: number | null;
}

/** What one step decided: go on at once with `next`, wait for the chain, or finish. */
type StepResult =
  | { kind: "next"; step: SweepStep; patch?: Patch }
  | { kind: "wait"; patch?: Patch }
  | { kind: "done"; patch: Patch; event?: Record<string, unknown>; again?: boolean };

interface Patch {
  step?: string;
  amount?: bigint;
  fee_trx?: bigint;
  fee_tx_hash?: string;
  fee_tx_signed?: TransactionJson;
  sweep_tx_hash?: string;
  sweep_tx_signed?: TransactionJson;
  swept_at?: Date;
}

export interface SweepRunResult {
  claimed: number;
  completed: number;
  failed: number;
}

class SweepError extends Error {}
class LeaseLost extends Error {}

interface Deps {
  ctx: Context;
  client: NodeClient;
  usdt: string;
  cold: string;
  hotKey: string;
  mnemonic: string;
  /** This worker's lease name. */
  owner: string;
}

function deps(ctx: Context, owner: string): Deps | null {
  const { config } = ctx;
  const usdt = ctx.chain.usdtContract;
  if (!config.sweepEnabled || !usdt || !config.coldWalletAddress || !config.hotWalletPrivateKey) return null;
  if (!config.walletMnemonic) return null;
  return {
    ctx,
    client: ctx.chain.client,
    usdt,
    cold: config.coldWalletAddress,
    hotKey: config.hotWalletPrivateKey,
    mnemonic: config.walletMnemonic,
    owner,
  };
}

/** Claims up to `limit` due settlements and advances each as far as the chain allows now. */
export async function runDueSweeps(
  ctx: Context,
  options: { limit?: number; owner?: string } = {},
): Promise<SweepRunResult> {
  const result: SweepRunResult = { claimed: 0, completed: 0, failed: 0 };
  const owner = options.owner ?? `sweeper-${process.pid}`;
  const d = deps(ctx, owner);
  if (!d) return result;
  const now = ctx.clock.now();
  const claimed = await queryRows<SettlementRow>(
    ctx.db,
    sql`
    UPDATE settlements s
    SET lease_owner = ${owner}, lease_expires_at = ${new Date(now.getTime() + SWEEP_LEASE_MS).toISOString()}::timestamptz
    FROM (
      SELECT id FROM settlements
      WHERE status IN ('waiting', 'active')
        AND (next_attempt_at IS NULL OR next_attempt_at <= ${now.toISOString()}::timestamptz)
        AND (lease_expires_at IS NULL OR lease_expires_at < ${now.toISOString()}::timestamptz)
      ORDER BY next_attempt_at NULLS FIRST
      LIMIT ${options.limit ?? 10}
      FOR UPDATE SKIP LOCKED
    ) due
    WHERE s.id = due.id
    RETURNING s.id::text AS id, s.order_id::text AS order_id, s.address, s.step, s.attempts,
      s.amount::text AS amount, s.fee_trx::text AS fee_trx, s.fee_tx_hash, s.fee_tx_signed,
      s.sweep_tx_hash, s.sweep_tx_signed,
      (SELECT a.derivation_index FROM addresses a WHERE a.address = s.address) AS derivation_index`,
  );
  result.claimed = claimed.length;
  for (const row of claimed) {
    const outcome = await advance(d, row);
    if (outcome === "completed") result.completed++;
    if (outcome === "failed") result.failed++;
  }
  return result;
}

async function advance(d: Deps, row: SettlementRow): Promise<"completed" | "failed" | "pending"> {
  let step: SweepStep = isStep(row.step) ? row.step : "fund";
  let current = row;
  try {
    // At most one full pass of the steps per claim; a wait or the end stops it.
    for (let i = 0; i < 4; i++) {
      const result = await runStep(d, current, step);
      if (result.kind === "done") {
        await finish(d, current, result.patch, result.event, result.again === true);
        return "completed";
      }
      if (result.kind === "wait") {
        await save(d, current, { step, ...result.patch }, SWEEP_WAIT_MS);
        return "pending";
      }
      await save(d, current, { ...result.patch, step: result.step }, 0);
      current = { ...current, ...rowPatch(result.patch), step: result.step };
      step = result.step;
    }
    return "pending";
  } catch (error) {
    return recordFailure(d, current, step, error);
  }
}

function isStep(value: string | null): value is SweepStep {
  return value === "fund" || value === "fund_sent" || value === "sweep" || value === "sweep_sent";
}

function rowPatch(patch: Patch | undefined): Partial<SettlementRow> {
  if (!patch) return {};
  const out: Partial<SettlementRow> = {};
  if (patch.fee_tx_hash !== undefined) out.fee_tx_hash = patch.fee_tx_hash;
  if (patch.fee_tx_signed !== undefined) out.fee_tx_signed = patch.fee_tx_signed;
  if (patch.sweep_tx_hash !== undefined) out.sweep_tx_hash = patch.sweep_tx_hash;
  if (patch.sweep_tx_signed !== undefined) out.sweep_tx_signed = patch.sweep_tx_signed;
  if (patch.amount !== undefined) out.amount = patch.amount.toString();
  if (patch.fee_trx !== undefined) out.fee_trx = patch.fee_trx.toString();
  return out;
}

async function runStep(d: Deps, row: SettlementRow, step: SweepStep): Promise<StepResult> {
  switch (step) {
    case "fund":
      return fund(d, row);
    case "fund_sent":
      return awaitFunding(d, row);
    case "sweep":
      return sweep(d, row);
    case "sweep_sent":
      return awaitSweep(d, row);
  }
}

async function usdtBalance(d: Deps, address: string): Promise<bigint> {
  const result = await d.client.triggerConstantContract({
    owner: address,
    contract: d.usdt,
    data: encodeBalanceOf(address),
  });
  const word = result.constant_result?.[0];
  if (!word || !/^[0-9a-f]{1,64}$/i.test(word)) throw new SweepError("balanceOf answered no value");
  return BigInt(`0x${word}`);
}

async function refBlock(d: Deps): Promise<RefBlock & { timestamp: number }> {
  const head = await d.client.getNowBlock();
  const raw = head.block_header.raw_data;
  return { number: raw.number ?? 0, hash: head.blockID, timestamp: raw.timestamp ?? Date.now() };
}

/** What moving `balance` off `address` costs now: the transfer's energy and the chain's prices. */
async function transferCost(
  d: Deps,
  address: string,
  balance: bigint,
): Promise<ChainPrices & { energy: bigint }> {
  const [energy, params] = await Promise.all([
    d.client.estimateEnergy({ owner: address, contract: d.usdt, data: encodeTransfer(d.cold, balance) }),
    d.client.getChainParameters(),
  ]);
  return {
    energy: BigInt(energy),
    energyPriceSun: BigInt(params.getEnergyFee ?? 420),
    bandwidthPriceSun: BigInt(params.getTransactionFee ?? 1000),
  };
}

async function fund(d: Deps, row: SettlementRow): Promise<StepResult> {
  const balance = await usdtBalance(d, row.address);
  if (balance < d.ctx.config.sweepMinUsdt) {
    // Dust stays where it is: sweeping it would cost more than it is worth.
    return { kind: "done", patch: { step: "below_minimum", amount: balance } };
  }
  const [cost, account] = await Promise.all([
    transferCost(d, row.address, balance),
    d.client.getAccount(row.address),
  ]);
  let freeBandwidth = FRESH_ACCOUNT_FREE_BANDWIDTH;
  if (account) {
    const resource = await d.client.getAccountResource(row.address);
    freeBandwidth = BigInt(Math.max(0, (resource.freeNetLimit ?? 0) - (resource.freeNetUsed ?? 0)));
  }
  const plan = planFunding({ ...cost, freeBandwidth, balanceSun: BigInt(account?.balance ?? 0) });
  if (plan.sendSun === 0n) return { kind: "next", step: "sweep", patch: { amount: balance, fee_trx: 0n } };
  const hotAddress = addressFromPrivateKey(d.hotKey);
  const ref = await refBlock(d);
  const signed = signTransaction(
    buildTrxTransfer({
      from: hotAddress,
      to: row.address,
      amount: plan.sendSun,
      refBlock: ref,
      nowMs: ref.timestamp,
    }),
    d.hotKey,
  );
  // Recorded before the broadcast: a crash from here on re-broadcasts these bytes.
  await saveSigned(d, row, {
    step: "fund_sent",
    amount: balance,
    fee_trx: plan.sendSun,
    fee_tx_hash: signed.txID,
    fee_tx_signed: signed,
  });
  await broadcast(d, signed);
  return {
    kind: "wait",
    patch: {
      step: "fund_sent",
      amount: balance,
      fee_trx: plan.sendSun,
      fee_tx_hash: signed.txID,
      fee_tx_signed: signed,
    },
  };
}

async function sweep(d: Deps, row: SettlementRow): Promise<StepResult> {
  const balance = await usdtBalance(d, row.address);
  if (balance === 0n) throw new SweepError("the deposit address holds no USDT to sweep");
  const feeLimitSun = sweepFeeLimit(await transferCost(d, row.address, balance));
  if (row.derivation_index === null) throw new SweepError("the deposit address is not in the address pool");
  const key = derivePrivateKey(d.mnemonic, row.derivation_index);
  let signed: TransactionJson;
  try {
    if (addressFromPrivateKey(key) !== row.address) {
      throw new SweepError("WALLET_MNEMONIC does not derive this deposit address");
    }
    const ref = await refBlock(d);
    signed = signTransaction(
      buildTriggerSmartContract({
        owner: row.address,
        contract: d.usdt,
        data: encodeTransfer(d.cold, balance),
        feeLimit: feeLimitSun,
        refBlock: ref,
        nowMs: ref.timestamp,
      }),
      key,
    );
  } finally {
    key.fill(0);
  }
  await saveSigned(d, row, {
    step: "sweep_sent",
    amount: balance,
    sweep_tx_hash: signed.txID,
    sweep_tx_signed: signed,
  });
  await broadcast(d, signed);
  return {
    kind: "wait",
    patch: { step: "sweep_sent", amount: balance, sweep_tx_hash: signed.txID, sweep_tx_signed: signed },
  };
}

async function broadcast(d: Deps, signed: TransactionJson): Promise<void> {
  try {
    await d.client.broadcastTransaction(signed);
  } catch (error) {
    // Already in the node's pool or chain: the earlier broadcast of these bytes went through.
    if (error instanceof TronNodeError && error.code === "DUP_TRANSACTION_ERROR") return;
    throw error;
  }
}

type Landing = "solid" | "pending" | "expired";

/**
 * Where a signed transaction stands: solidified with success ("solid"), in a block but not solid yet
 * or still in flight ("pending": the same bytes are broadcast again), or expired without ever being
 * included ("expired": it can never land, so building a new one cannot pay twice).
 */
async function landing(d: Deps, signed: TransactionJson): Promise<Landing> {
  const solid = await d.client.getTransactionInfoById(signed.txID, { solidified: true });
  if (solid) {
    const result = solid.receipt?.result;
    if (solid.result === "FAILED" || (result !== undefined && result !== "SUCCESS")) {
      throw new SweepError(`transaction ${signed.txID} failed on chain: ${result ?? "FAILED"}`);
    }
    return "solid";
  }
  if (await d.client.getTransactionInfoById(signed.txID)) return "pending";
  const head = await refBlock(d);
  if (signed.raw_data.expiration < head.timestamp) return "expired";
  await broadcast(d, signed);
  return "pending";
}

async function awaitFunding(d: Deps, row: SettlementRow): Promise<StepResult> {
  if (!row.fee_tx_signed) return { kind: "next", step: "fund" };
  const state = await landing(d, row.fee_tx_signed);
  if (state === "solid") return { kind: "next", step: "sweep" };
  return state === "expired" ? { kind: "next", step: "fund" } : { kind: "wait" };
}

async function awaitSweep(d: Deps, row: SettlementRow): Promise<StepResult> {
  const signed = row.sweep_tx_signed;
  if (!signed) return { kind: "next", step: "sweep" };
  let state: Landing;
  try {
    state = await landing(d, signed);
  } catch (error) {
    // OUT_OF_ENERGY or REVERT: the burned TRX is gone, so the next attempt funds again.
    if (error instanceof SweepError) await saveStep(d, row, "fund");
    throw error;
  }
  if (state === "pending") return { kind: "wait" };
  if (state === "expired") return { kind: "next", step: "sweep" };
  // A payment that arrived after the sweep was signed is still on the address: sweep again.
  const rest = await usdtBalance(d, row.address);
  return {
    kind: "done",
    again: rest >= d.ctx.config.sweepMinUsdt,
    patch: { step: "swept", swept_at: d.ctx.clock.now() },
    event: {
      amount: formatAmount(BigInt(row.amount ?? 0)),
      sweep_tx_hash: signed.txID,
      fee_tx_hash: row.fee_tx_hash,
      fee_trx: row.fee_trx === null ? null : formatAmount(BigInt(row.fee_trx)),
      cold_wallet_address: d.cold,
    },
  };
}

function setClause(patch: Patch) {
  return sql.join(
    [
      patch.step === undefined ? null : sql`step = ${patch.step}`,
      patch.amount === undefined ? null : sql`amount = ${patch.amount.toString()}::numeric`,
      patch.fee_trx === undefined ? null : sql`fee_trx = ${patch.fee_trx.toString()}::numeric`,
      patch.fee_tx_hash === undefined ? null : sql`fee_tx_hash = ${patch.fee_tx_hash}`,
      patch.fee_tx_signed === undefined
        ? null
        : sql`fee_tx_signed = ${JSON.stringify(patch.fee_tx_signed)}::jsonb`,
      patch.sweep_tx_hash === undefined ? null : sql`sweep_tx_hash = ${patch.sweep_tx_hash}`,
      patch.sweep_tx_signed === undefined
        ? null
        : sql`sweep_tx_signed = ${JSON.stringify(patch.sweep_tx_signed)}::jsonb`,
      patch.swept_at === undefined ? null : sql`swept_at = ${patch.swept_at.toISOString()}::timestamptz`,
    ].filter((part) => part !== null),
    sql`, `,
  );
}

/** Updates the settlement only while this worker still holds its lease; a lost lease aborts the step. */
async function update(d: Deps, db: Executor, row: SettlementRow, set: SQL): Promise<void> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE settlements SET ${set}, updated_at = ${d.ctx.clock.now().toISOString()}::timestamptz
      WHERE id = ${row.id}::uuid AND lease_owner = ${d.owner} RETURNING id::text AS id`,
  );
  if (rows.length === 0) throw new LeaseLost(`lease on settlement ${row.id} was lost`);
}

/** Stores a signed transaction with its step: the write that must precede every broadcast. */
async function saveSigned(d: Deps, row: SettlementRow, patch: Patch): Promise<void> {
  await update(d, d.ctx.db, row, sql`${setClause(patch)}, status = 'active'`);
}

async function saveStep(d: Deps, row: SettlementRow, step: SweepStep): Promise<void> {
  await update(d, d.ctx.db, row, sql`step = ${step}`);
}

/** After a step: go on now (delay 0, lease kept) or look again later (lease released). */
async function save(d: Deps, row: SettlementRow, patch: Patch, delayMs: number): Promise<void> {
  const at = new Date(d.ctx.clock.now().getTime() + delayMs).toISOString();
  const parts = [setClause(patch), sql`status = 'active'`, sql`next_attempt_at = ${at}::timestamptz`];
  if (delayMs > 0) parts.push(sql`lease_owner = NULL, lease_expires_at = NULL`);
  await update(d, d.ctx.db, row, sql.join(parts, sql`, `));
}

async function finish(
  d: Deps,
  row: SettlementRow,
  patch: Patch,
  event: Record<string, unknown> | undefined,
  again: boolean,
): Promise<void> {
  const { ctx } = d;
  // Swept, but more arrived meanwhile: the settlement starts over (its record of this sweep stays).
  const next = again
    ? sql`status = 'waiting', step = NULL, next_attempt_at = ${ctx.clock.now().toISOString()}::timestamptz`
    : sql`status = 'completed', next_attempt_at = NULL`;
  const columns = again ? { ...patch, step: undefined } : patch;
  await ctx.db.transaction(async (tx) => {
    await update(
      d,
      tx,
      row,
      sql`${setClause(columns)}, ${next}, last_error = NULL, lease_owner = NULL, lease_expires_at = NULL`,
    );
    if (event) await appendOrderEvent(ctx, tx, row.order_id, "sweep_completed", event);
  });
  ctx.metrics.sweeps.inc({ result: "completed" });
  // What the hot wallet sent to fund this sweep (the part the fees did not burn stays on the address).
  if (row.fee_trx !== null) ctx.metrics.sweepSpentTrx.inc(Number(formatAmount(BigInt(row.fee_trx))));
  ctx.log.info({ orderId: row.order_id, step: patch.step, again }, "sweep completed");
}

async function recordFailure(
  d: Deps,
  row: SettlementRow,
  step: SweepStep,
  error: unknown,
): Promise<"failed" | "pending"> {
  const { ctx } = d;
  if (error instanceof LeaseLost) {
    ctx.log.warn({ orderId: row.order_id, step }, error.message);
    return "pending";
  }
  const reason = error instanceof Error ? error.message : String(error);
  const now = ctx.clock.now();
  const later = (ms: number) => new Date(now.getTime() + ms).toISOString();
  if (error instanceof TronNodeError && error.retryable) {
    // The node is down or limiting us: not the sweep's fault, so no attempt is used up.
    await update(
      d,
      ctx.db,
      row,
      sql`last_error = ${reason}, next_attempt_at = ${later(SWEEP_NODE_RETRY_MS)}::timestamptz,
        lease_owner = NULL, lease_expires_at = NULL`,
    );
    ctx.log.warn({ orderId: row.order_id, step, err: reason }, "sweep waits for the node");
    return "pending";
  }
  const attempt = row.attempts + 1;
  if (attempt >= SWEEP_MAX_ATTEMPTS) {
    await ctx.db.transaction(async (tx) => {
      await update(
        d,
        tx,
        row,
        sql`status = 'failed', attempts = ${attempt}, last_error = ${reason}, next_attempt_at = NULL,
          lease_owner = NULL, lease_expires_at = NULL`,
      );
      await appendOrderEvent(ctx, tx, row.order_id, "sweep_failed", { reason, attempt, step });
    });
    ctx.metrics.sweeps.inc({ result: "failed" });
    ctx.log.error({ orderId: row.order_id, step, attempt, err: reason }, "sweep failed");
    return "failed";
  }
  await update(
    d,
    ctx.db,
    row,
    sql`status = 'active', attempts = ${attempt}, last_error = ${reason},
      next_attempt_at = ${later(sweepBackoffMs(attempt))}::timestamptz, lease_owner = NULL, lease_expires_at = NULL`,
  );
  ctx.metrics.sweeps.inc({ result: "retry" });
  ctx.log.warn({ orderId: row.order_id, step, attempt, err: reason }, "sweep attempt failed");
  return "pending";
}
