/**
 * The sweeper's writes to `settlements`: the claim under a lease, and every later write guarded by
 * that lease, so a worker that lost its settlement to another never overwrites it.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { formatSun } from "../money.js";
import { appendOrderEvent } from "../orders/transitions.js";
import { insertSweepCost, settleLedger, type SweepCostFigures } from "./sweep-ledger.js";
import { LeaseLost, type Patch, type SettlementRow, type SweepDeps } from "./sweep-types.js";

export const SWEEP_LEASE_MS = 120_000;

/** Leases up to `limit` due settlements of `chain` to `owner`. */
export async function claimDueSettlements(
  ctx: Context,
  owner: string,
  limit: number,
  chain = "tron",
): Promise<SettlementRow[]> {
  const now = ctx.clock.now();
  const leaseMs = ctx.config.workerLeaseMs ?? SWEEP_LEASE_MS;
  return queryRows<SettlementRow>(
    ctx.db,
    sql`
    UPDATE settlements s
    SET lease_owner = ${owner}, lease_expires_at = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
    FROM (
      SELECT c.id FROM settlements c
      WHERE c.status IN ('waiting', 'active') AND c.chain = ${chain}
        AND (c.next_attempt_at IS NULL OR c.next_attempt_at <= ${now.toISOString()}::timestamptz)
        AND (c.lease_expires_at IS NULL OR c.lease_expires_at < ${now.toISOString()}::timestamptz)
        -- One sweep of an address at a time, per chain, oldest first: an order's settlement and an
        -- address-level one (a stray's) both sweep the address's whole balance, and on EVM chains
        -- both would spend its one nonce sequence and its topped-up gas (docs/evm-sweeps.md).
        AND NOT EXISTS (
          SELECT 1 FROM settlements e
          WHERE e.address = c.address AND e.chain = c.chain AND e.id < c.id
            AND e.status IN ('waiting', 'active'))
      ORDER BY c.next_attempt_at NULLS FIRST
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ) due
    WHERE s.id = due.id
    RETURNING s.id::text AS id, s.order_id::text AS order_id, s.address, s.chain, s.step, s.attempts,
      s.amount::text AS amount, s.fee_trx::text AS fee_trx, s.fee_tx_hash, s.fee_tx_signed,
      s.sweep_tx_hash, s.sweep_tx_signed, s.mode, s.round, (extract(epoch FROM s.swept_at) * 1000)::bigint::text AS swept_at,
      (SELECT a.derivation_index FROM addresses a WHERE a.address = s.address) AS derivation_index,
      (SELECT a.static_index FROM addresses a WHERE a.address = s.address) AS static_index`,
  );
}

/** The row as the next step sees it after `patch` was saved. */
export function applyPatch(row: SettlementRow, patch: Patch | undefined): SettlementRow {
  if (!patch) return row;
  const out: SettlementRow = { ...row };
  if (patch.step !== undefined) out.step = patch.step;
  if (patch.fee_tx_hash !== undefined) out.fee_tx_hash = patch.fee_tx_hash;
  if (patch.fee_tx_signed !== undefined) out.fee_tx_signed = patch.fee_tx_signed;
  if (patch.sweep_tx_hash !== undefined) out.sweep_tx_hash = patch.sweep_tx_hash;
  if (patch.sweep_tx_signed !== undefined) out.sweep_tx_signed = patch.sweep_tx_signed;
  if (patch.amount !== undefined) out.amount = patch.amount.toString();
  if (patch.fee_trx !== undefined) out.fee_trx = patch.fee_trx.toString();
  if (patch.swept_at !== undefined) out.swept_at = String(patch.swept_at.getTime());
  if (patch.mode !== undefined) out.mode = patch.mode;
  return out;
}

function setClause(patch: Patch): SQL {
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
      patch.mode === undefined ? null : sql`mode = ${patch.mode}`,
    ].filter((part) => part !== null),
    sql`, `,
  );
}

/** Updates the settlement only while this worker still holds its lease; a lost lease aborts the step. */
export async function updateLeased(
  d: Pick<SweepDeps, "ctx" | "owner">,
  db: Executor,
  row: SettlementRow,
  set: SQL,
): Promise<void> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE settlements SET ${set}, updated_at = ${d.ctx.clock.now().toISOString()}::timestamptz
      WHERE id = ${row.id}::uuid AND lease_owner = ${d.owner} RETURNING id::text AS id`,
  );
  if (rows.length === 0) throw new LeaseLost(`lease on settlement ${row.id} was lost`);
}

/** Stores columns (a signed transaction with its step) while keeping the lease. */
export async function savePatch(
  d: SweepDeps,
  row: SettlementRow,
  patch: Patch,
  db: Executor = d.ctx.db,
): Promise<void> {
  await updateLeased(d, db, row, sql`${setClause(patch)}, status = 'active'`);
}

/** After a step: go on now (delay 0, lease kept) or look again later (lease released). */
export async function saveAfterStep(
  d: SweepDeps,
  row: SettlementRow,
  patch: Patch,
  delayMs: number,
): Promise<void> {
  const at = new Date(d.ctx.clock.now().getTime() + delayMs).toISOString();
  const parts = [setClause(patch), sql`status = 'active'`, sql`next_attempt_at = ${at}::timestamptz`];
  if (delayMs > 0) parts.push(sql`lease_owner = NULL, lease_expires_at = NULL`);
  await updateLeased(d, d.ctx.db, row, sql.join(parts, sql`, `));
}

/**
 * Ends the settlement: completed with `sweep_completed`, or, when more USDT arrived meanwhile
 * (`again`), back to waiting for another round (its record of this sweep stays).
 */
export async function finishSettlement(
  d: SweepDeps,
  row: SettlementRow,
  patch: Patch,
  event: Record<string, unknown> | undefined,
  again: boolean,
): Promise<void> {
  const { ctx } = d;
  const now = ctx.clock.now().toISOString();
  // Another round starts from scratch, under the mode configured then.
  const next = again
    ? sql`status = 'waiting', step = NULL, mode = NULL, round = round + 1, queued_at = ${now}::timestamptz,
        next_attempt_at = ${now}::timestamptz`
    : sql`status = 'completed', next_attempt_at = NULL`;
  const columns = again ? { ...patch, step: undefined } : patch;
  if (patch.step === "swept") await settleLedger(d, row);
  const cost = await ctx.db.transaction(async (tx) => {
    let figures: SweepCostFigures | null = null;
    if (patch.step === "swept") {
      const sweptAt = patch.swept_at ?? (row.swept_at ? new Date(Number(row.swept_at)) : ctx.clock.now());
      figures = await insertSweepCost(d, tx, row, sweptAt);
    }
    await updateLeased(
      d,
      tx,
      row,
      sql`${setClause(columns)}, ${next}, last_error = NULL, lease_owner = NULL, lease_expires_at = NULL`,
    );
    // An address-level settlement has no order to tell: its row (status, swept_at) is the record.
    if (event && row.order_id !== null)
      await appendOrderEvent(ctx, tx, row.order_id, "sweep_completed", event);
    return figures;
  });
  ctx.metrics.sweeps.inc({ result: "completed" });
  // The ledger's figures, read from the transaction infos' fees (every transaction of the sweep,
  // the hot wallet's own included), counted once, when the round's row was written.
  if (cost) {
    ctx.metrics.sweepSpentTrx.inc(Number(formatSun(cost.trxBurntSun)));
    ctx.metrics.sweepDelegatedEnergy.inc(Number(cost.energyDelegated));
  }
  ctx.log.info({ orderId: row.order_id, step: patch.step, again }, "sweep completed");
}
