/**
 * Reads of refunds and payouts: one by id (the merchant's own, or any for the admin, with its
 * events and transactions), and lists newest first with filters, paged by (created_at, id).
 */
import { and, asc, desc, eq, inArray, lt, or, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { payoutEvents, payouts, payoutTransactions } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { formatAmount } from "../money.js";
import { txExplorerUrl } from "../payments/explorer.js";
import { nativeSymbol } from "../chains/chain-types.js";
import { formatWei } from "../chains/token-units.js";
import { evmPayoutVersions } from "./evm-payout-gas.js";
import { displayAddress, payoutNetwork } from "./payout-currency.js";
import type { PayoutKind, PayoutRow, PayoutStatus } from "./payout-types.js";

export async function getPayout(ctx: Context, id: string, merchantId?: string): Promise<PayoutRow> {
  if (!isUuid(id)) throw new AppError("NOT_FOUND", "payout not found");
  const [row] = await ctx.db
    .select()
    .from(payouts)
    .where(
      merchantId === undefined
        ? eq(payouts.id, id)
        : and(eq(payouts.id, id), eq(payouts.merchantId, merchantId)),
    );
  if (!row) throw new AppError("NOT_FOUND", "payout not found");
  return row;
}

/** A list request as both APIs take it: `status` is one status or several separated by commas. */
export interface PayoutListQuery {
  kind?: PayoutKind | undefined;
  status?: string | undefined;
  order_id?: string | undefined;
  limit: number;
  /** created_at|id of the last row of the previous page */
  cursor?: string | undefined;
}

/** One page of the list in the reply shape, of one merchant's payouts or (no merchantId) of all. */
export async function listPayouts(ctx: Context, query: PayoutListQuery, merchantId: string | undefined) {
  const { rows, nextCursor } = await listPayoutRows(ctx, query, merchantId);
  return { data: rows.map((row) => toPayoutReply(ctx, row)), next_cursor: nextCursor };
}

async function listPayoutRows(
  ctx: Context,
  query: PayoutListQuery,
  merchantId: string | undefined,
): Promise<{ rows: PayoutRow[]; nextCursor: string | null }> {
  const where: SQL[] = [];
  if (merchantId !== undefined) where.push(eq(payouts.merchantId, merchantId));
  if (query.kind !== undefined) where.push(eq(payouts.kind, query.kind));
  if (query.status !== undefined && query.status.length > 0)
    where.push(inArray(payouts.status, query.status.split(",") as PayoutStatus[]));
  if (query.order_id !== undefined) {
    if (!isUuid(query.order_id)) return { rows: [], nextCursor: null };
    where.push(eq(payouts.orderId, query.order_id));
  }
  if (query.cursor !== undefined) {
    const [at, id] = query.cursor.split("|");
    const when = new Date(at ?? "");
    if (Number.isNaN(when.getTime()) || !id || !isUuid(id)) {
      throw new AppError("INVALID_QUERY", "cursor is not one this API returned");
    }
    const cursorCondition = or(
      lt(payouts.createdAt, when),
      and(eq(payouts.createdAt, when), lt(payouts.id, id)),
    );
    if (cursorCondition) where.push(cursorCondition);
  }
  const rows = await ctx.db
    .select()
    .from(payouts)
    .where(where.length > 0 ? and(...where) : undefined)
    .orderBy(desc(payouts.createdAt), desc(payouts.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    rows: page,
    nextCursor: rows.length > query.limit && last ? `${last.createdAt.toISOString()}|${last.id}` : null,
  };
}

/** The reply shape shared by the merchant and admin APIs. */
export function toPayoutReply(ctx: Context, row: PayoutRow) {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    external_id: row.externalId,
    order_id: row.orderId,
    stray_transfer_id: row.strayTransferId,
    merchant_id: row.merchantId,
    amount: formatAmount(row.amount),
    currency: row.currency,
    chain: row.chain,
    network: payoutNetwork(ctx, row),
    address: displayAddress(ctx, row),
    reason: row.reason,
    callback_url: row.callbackUrl,
    metadata: row.metadata,
    tx_hash: row.txHash,
    tx_explorer_url: row.txHash ? txExplorerUrl(ctx.config, row.txHash) : null,
    trx_burnt: row.trxBurntSun === null ? null : formatAmount(row.trxBurntSun),
    gas_cost_wei: row.gasCostWei === null ? null : row.gasCostWei.toString(),
    gas_cost: row.gasCostWei === null ? null : formatWei(row.gasCostWei),
    native_symbol: nativeSymbol(row.chain),
    auto_approved: row.autoApproved,
    created_by: row.createdByLabel,
    decided_by: row.decidedByLabel,
    created_at: row.createdAt.toISOString(),
    approved_at: row.approvedAt?.toISOString() ?? null,
    completed_at: row.completedAt?.toISOString() ?? null,
    failed_at: row.failedAt?.toISOString() ?? null,
    last_error: row.lastError,
  };
}

/** One transaction of a payout in the admin reply: TRON's fee fields, or EVM's gas fields. */
export interface PayoutTransactionView {
  tx_hash: string;
  attempt: number;
  state: string;
  mode: string;
  result: string | null;
  fee_trx: string | null;
  energy_used: number | null;
  nonce: number | null;
  generation: number | null;
  block_number: number | null;
  gas_used: string | null;
  effective_gas_price_wei: string | null;
  gas_cost_wei: string | null;
  gas_cost: string | null;
  created_at: string;
  landed_at: string | null;
}

const evmResult = (success: boolean | null) => (success === null ? null : success ? "SUCCESS" : "REVERT");

/**
 * A payout's transactions: what payout_transactions holds (TRON's sender), then every signed version
 * the EVM outbox holds for it (replacements and lost submissions included), each with its gas once
 * landed. A payout has rows in one of the two only, so both are read.
 */
async function payoutTransactionViews(ctx: Context, payout: PayoutRow): Promise<PayoutTransactionView[]> {
  const noEvm = { nonce: null, generation: null, gas_used: null, effective_gas_price_wei: null };
  const [rows, versions] = await Promise.all([
    ctx.db
      .select()
      .from(payoutTransactions)
      .where(eq(payoutTransactions.payoutId, payout.id))
      .orderBy(asc(payoutTransactions.attempt)),
    evmPayoutVersions(ctx.db, payout.chain, payout.id, payout.attempts),
  ]);
  const signed = rows.map((t) => ({
    tx_hash: t.txHash,
    attempt: t.attempt,
    state: t.state,
    mode: t.mode,
    result: t.result,
    fee_trx: t.feeSun === null ? null : formatAmount(t.feeSun),
    energy_used: t.energyUsed === null ? null : Number(t.energyUsed),
    ...noEvm,
    block_number: t.blockNumber,
    gas_cost_wei: null,
    gas_cost: null,
    created_at: t.createdAt.toISOString(),
    landed_at: t.landedAt?.toISOString() ?? null,
  }));
  return [
    ...signed,
    ...versions.map((v) => ({
      tx_hash: v.txHash,
      attempt: v.attempt,
      state: v.state,
      mode: "eip1559",
      result: evmResult(v.success),
      fee_trx: null,
      energy_used: null,
      nonce: v.nonce,
      generation: v.generation,
      block_number: v.blockNumber,
      gas_used: v.gasUsed?.toString() ?? null,
      effective_gas_price_wei: v.effectiveGasPrice?.toString() ?? null,
      gas_cost_wei: v.gasCostWei?.toString() ?? null,
      gas_cost: v.gasCostWei === null ? null : formatWei(v.gasCostWei),
      created_at: v.createdAt.toISOString(),
      landed_at: v.gasCostWei === null ? null : v.updatedAt.toISOString(),
    })),
  ];
}

export async function getPayoutHistory(ctx: Context, payout: PayoutRow) {
  const [events, transactions] = await Promise.all([
    ctx.db
      .select()
      .from(payoutEvents)
      .where(eq(payoutEvents.payoutId, payout.id))
      .orderBy(asc(payoutEvents.createdAt)),
    payoutTransactionViews(ctx, payout),
  ]);
  return {
    events: events.map((e) => ({
      id: e.id,
      event_type: e.eventType,
      from_status: e.fromStatus,
      to_status: e.toStatus,
      actor: e.actor,
      payload: e.payload,
      created_at: e.createdAt.toISOString(),
    })),
    transactions,
  };
}

/** A payout (404 when there is none) with its history, for the admin detail page. */
export async function getPayoutDetail(ctx: Context, id: string) {
  const payout = await getPayout(ctx, id);
  return { payout, ...(await getPayoutHistory(ctx, payout)) };
}
