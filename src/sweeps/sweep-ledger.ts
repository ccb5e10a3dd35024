/**
 * The cost ledger (DESIGN.md 7b): every transaction a sweep signs is a `sweep_transactions` row,
 * written before the broadcast; once the transaction lands its fees are copied from the transaction
 * info (fee, receipt.energy_fee, receipt.net_fee: what the chain really charged, never an estimate).
 * When a sweep ends, its round's rows are summed into one `sweep_costs` row.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { chainFailure } from "../chains/tron/transaction-failure.js";
import { queryRows } from "../db/query-rows.js";
import { SEEN_AGAIN } from "./missing-sightings.js";
import type { TransactionInfo } from "@stablegate/tron/node-types";
import type { TransactionJson } from "@stablegate/tron/protobuf";
import type { SettlementRow, SweepDeps } from "./sweep-types.js";

export type SweepTxKind = "fund" | "activate" | "delegate" | "sweep" | "undelegate" | "reclaim";

export interface LedgerEntry {
  kind: SweepTxKind;
  /** the deposit address the transaction concerns */
  address: string;
  createsAccount?: boolean;
  stakeSun?: bigint;
  energy?: bigint;
}

export async function insertLedgerTx(
  d: SweepDeps,
  db: Executor,
  settlement: { id: string; round: number } | null,
  signed: TransactionJson,
  entry: LedgerEntry,
): Promise<void> {
  await db.execute(sql`
    INSERT INTO sweep_transactions (tx_hash, settlement_id, round, kind, address, signed, creates_account,
      stake_sun, energy, created_at)
    VALUES (${signed.txID}, ${settlement?.id ?? null}::uuid, ${settlement?.round ?? 0}, ${entry.kind},
      ${entry.address}, ${JSON.stringify(signed)}::jsonb, ${entry.createsAccount ?? false},
      ${entry.stakeSun?.toString() ?? null}::numeric, ${entry.energy?.toString() ?? null}::bigint,
      ${d.ctx.clock.now().toISOString()}::timestamptz)
    ON CONFLICT (tx_hash) DO NOTHING`);
}

/** Records where a stored transaction stands; with an info, what it was charged. */
export async function recordLanding(
  d: SweepDeps,
  txHash: string,
  state: "sent" | "included" | "solid" | "failed" | "expired",
  info?: TransactionInfo,
): Promise<void> {
  const fees = info
    ? sql`, fee_sun = ${String(info.fee ?? 0)}::numeric,
        energy_fee_sun = ${String(info.receipt?.energy_fee ?? 0)}::numeric,
        net_fee_sun = ${String(info.receipt?.net_fee ?? 0)}::numeric,
        energy_used = ${String(info.receipt?.energy_usage_total ?? 0)}::bigint,
        net_usage = ${String(info.receipt?.net_usage ?? 0)}::bigint,
        landed_at = ${d.ctx.clock.now().toISOString()}::timestamptz`
    : sql``;
  // A transaction never goes back to an earlier state.
  const earlier = state === "sent" ? sql`('signed')` : sql`('signed', 'sent', 'included', 'expired')`;
  // A sighting forgets the rounds it was missed (missing-sightings.ts).
  const seen = state === "sent" || state === "expired" ? sql`` : sql`, ${SEEN_AGAIN}`;
  await d.ctx.db.execute(sql`
    UPDATE sweep_transactions SET state = ${state} ${fees} ${seen}
    WHERE tx_hash = ${txHash} AND state IN ${earlier}`);
}

interface LedgerRow extends Record<string, unknown> {
  tx_hash: string;
  kind: SweepTxKind;
  state: string;
  signed: TransactionJson;
  stake_sun: string | null;
  energy: string | null;
}

/** The newest transaction of `kind` signed in the settlement's current round, if any. */
export async function latestLedgerTx(
  d: SweepDeps,
  row: SettlementRow,
  kind: SweepTxKind,
): Promise<LedgerRow | undefined> {
  const [latest] = await queryRows<LedgerRow>(
    d.ctx.db,
    sql`SELECT tx_hash, kind, state, signed, stake_sun::text AS stake_sun, energy::text AS energy
      FROM sweep_transactions
      WHERE settlement_id = ${row.id}::uuid AND round = ${row.round} AND kind = ${kind}
      ORDER BY created_at DESC, tx_hash LIMIT 1`,
  );
  return latest;
}

/**
 * Fills in the fees of the round's transactions that were only seen included (delegate mode does
 * not wait for every one of them to be solid); by the end of the sweep they are.
 */
export async function settleLedger(d: SweepDeps, row: SettlementRow): Promise<void> {
  const open = await queryRows<{ tx_hash: string }>(
    d.ctx.db,
    sql`SELECT tx_hash FROM sweep_transactions
      WHERE settlement_id = ${row.id}::uuid AND round = ${row.round} AND state IN ('signed', 'sent', 'included')`,
  );
  for (const { tx_hash } of open) {
    const info = await d.client.getTransactionInfoById(tx_hash, { solidified: true });
    if (!info) continue;
    const failed = chainFailure(info) !== null;
    await recordLanding(d, tx_hash, failed ? "failed" : "solid", info);
  }
}

/** What a finished sweep's `sweep_costs` row records, for the metrics. */
export interface SweepCostFigures {
  trxBurntSun: bigint;
  energyDelegated: bigint;
}

/**
 * Sums the round's landed transactions into its `sweep_costs` row; runs in the finishing
 * transaction, before the settlement moves on to another round. Returns the row's figures, or null
 * when the round was recorded already (a finish repeated after a crash is not counted twice).
 */
export async function insertSweepCost(
  d: SweepDeps,
  tx: Executor,
  row: SettlementRow,
  sweptAt: Date,
): Promise<SweepCostFigures | null> {
  const now = d.ctx.clock.now().toISOString();
  const [inserted] = await queryRows<{ trx_burnt: string; energy_delegated: string }>(
    tx,
    sql`
    INSERT INTO sweep_costs (settlement_id, round, order_id, address_id, mode, fresh_address, amount, trx_burnt,
      activation_trx, energy_delegated, energy_used, transactions, queued_at, swept_at, finished_at)
    SELECT s.id, s.round, s.order_id, s.address_id, COALESCE(s.mode, 'burn'),
      COALESCE(bool_or(t.creates_account), false), COALESCE(s.amount, 0),
      COALESCE(sum(t.fee_sun) FILTER (WHERE t.state IN ('solid', 'failed')), 0),
      COALESCE(sum(t.fee_sun) FILTER (WHERE t.creates_account AND t.state IN ('solid', 'failed')), 0),
      COALESCE(sum(t.energy) FILTER (WHERE t.kind = 'delegate' AND t.state IN ('solid', 'included')), 0),
      COALESCE(sum(t.energy_used) FILTER (WHERE t.kind = 'sweep' AND t.state IN ('solid', 'failed')), 0),
      count(t.tx_hash) FILTER (WHERE t.state IN ('solid', 'failed')),
      COALESCE(s.queued_at, s.created_at), ${sweptAt.toISOString()}::timestamptz, ${now}::timestamptz
    FROM settlements s
    LEFT JOIN sweep_transactions t ON t.settlement_id = s.id AND t.round = s.round
    WHERE s.id = ${row.id}::uuid
    GROUP BY s.id
    ON CONFLICT (settlement_id, round) DO NOTHING
    RETURNING trx_burnt::text AS trx_burnt, energy_delegated::text AS energy_delegated`,
  );
  if (!inserted) return null;
  return { trxBurntSun: BigInt(inserted.trx_burnt), energyDelegated: BigInt(inserted.energy_delegated) };
}
