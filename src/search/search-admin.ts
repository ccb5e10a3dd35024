/**
 * GET /api/v1/admin/search: one box for everything an operator may paste. A query is matched
 * exactly (no prefixes, no patterns) against
 * - orders: id, external id (any merchant), deposit address, hash of a transfer into the order;
 * - payouts and refunds: id, external id, hash of any of its transactions;
 * - stray transfers: id, transaction hash.
 * Every lookup reads one index; an address shared by many orders over time lists its newest first.
 * Transaction hashes are matched in lowercase hex with or without a 0x prefix.
 */
import { desc, eq, inArray, or } from "drizzle-orm";
import type { Context } from "../context.js";
import { merchants, orders, payoutTransactions, payouts, strayTransfers, transfers } from "../db/schema.js";
import { formatAmount } from "../money.js";

export type SearchHitKind = "order" | "payout" | "refund" | "stray_transfer";
export type SearchMatch = "id" | "external_id" | "address" | "tx_hash";

export interface SearchHit {
  kind: SearchHitKind;
  id: string;
  matched: SearchMatch;
  status: string;
  amount: string;
  merchant_id: string | null;
  merchant_name: string | null;
  external_id: string | null;
  created_at: string;
  /** the console page of the hit */
  link: string;
}

/** Hits per kind at most: an address reused by many orders lists its newest. */
export const SEARCH_HITS_PER_KIND = 20;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TX_HASH = /^(?:0x)?([0-9a-f]{64})$/i;

function txHashOf(q: string): string | null {
  const match = TX_HASH.exec(q);
  return match ? match[1]!.toLowerCase() : null;
}

async function searchOrders(ctx: Context, q: string): Promise<SearchHit[]> {
  const id = UUID.test(q) ? q.toLowerCase() : null;
  const hash = txHashOf(q);
  const byTransfer = hash
    ? (
        await ctx.db
          .selectDistinct({ orderId: transfers.orderId })
          .from(transfers)
          .where(eq(transfers.txHash, hash))
          .limit(SEARCH_HITS_PER_KIND)
      ).map((row) => row.orderId)
    : [];
  const conditions = [eq(orders.externalId, q), eq(orders.address, q)];
  if (id) conditions.push(eq(orders.id, id));
  if (byTransfer.length > 0) conditions.push(inArray(orders.id, byTransfer));
  const rows = await ctx.db
    .select({ order: orders, merchantName: merchants.name })
    .from(orders)
    .innerJoin(merchants, eq(merchants.id, orders.merchantId))
    .where(or(...conditions))
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(SEARCH_HITS_PER_KIND);
  return rows.map(({ order, merchantName }) => ({
    kind: "order",
    id: order.id,
    matched:
      order.id === id
        ? "id"
        : order.externalId === q
          ? "external_id"
          : order.address === q
            ? "address"
            : "tx_hash",
    status: order.status,
    amount: formatAmount(order.amountExpected),
    merchant_id: order.merchantId,
    merchant_name: merchantName,
    external_id: order.externalId,
    created_at: order.createdAt.toISOString(),
    link: `/admin/orders/${order.id}`,
  }));
}

async function searchPayouts(ctx: Context, q: string): Promise<SearchHit[]> {
  const id = UUID.test(q) ? q.toLowerCase() : null;
  const hash = txHashOf(q);
  const byTransaction = hash
    ? (
        await ctx.db
          .selectDistinct({ payoutId: payoutTransactions.payoutId })
          .from(payoutTransactions)
          .where(eq(payoutTransactions.txHash, hash))
      ).map((row) => row.payoutId)
    : [];
  const conditions = [eq(payouts.externalId, q)];
  if (id) conditions.push(eq(payouts.id, id));
  if (byTransaction.length > 0) conditions.push(inArray(payouts.id, byTransaction));
  const rows = await ctx.db
    .select({ payout: payouts, merchantName: merchants.name })
    .from(payouts)
    .innerJoin(merchants, eq(merchants.id, payouts.merchantId))
    .where(or(...conditions))
    .orderBy(desc(payouts.createdAt), desc(payouts.id))
    .limit(SEARCH_HITS_PER_KIND);
  return rows.map(({ payout, merchantName }) => ({
    kind: payout.kind,
    id: payout.id,
    matched: payout.id === id ? "id" : payout.externalId === q ? "external_id" : "tx_hash",
    status: payout.status,
    amount: formatAmount(payout.amount),
    merchant_id: payout.merchantId,
    merchant_name: merchantName,
    external_id: payout.externalId,
    created_at: payout.createdAt.toISOString(),
    link: `/admin/payouts/${payout.id}`,
  }));
}

async function searchStrays(ctx: Context, q: string): Promise<SearchHit[]> {
  const id = UUID.test(q) ? q.toLowerCase() : null;
  const hash = txHashOf(q);
  if (!id && !hash) return [];
  const conditions = [];
  if (id) conditions.push(eq(strayTransfers.id, id));
  if (hash) conditions.push(eq(strayTransfers.txHash, hash));
  const rows = await ctx.db
    .select()
    .from(strayTransfers)
    .where(or(...conditions))
    .orderBy(desc(strayTransfers.createdAt), desc(strayTransfers.id))
    .limit(SEARCH_HITS_PER_KIND);
  return rows.map((stray) => ({
    kind: "stray_transfer",
    id: stray.id,
    matched: stray.id === id ? "id" : "tx_hash",
    status: stray.resolution ?? "unresolved",
    amount: formatAmount(stray.amount),
    merchant_id: null,
    merchant_name: null,
    external_id: null,
    created_at: stray.createdAt.toISOString(),
    link: `/admin/stray-transfers/${stray.id}`,
  }));
}

/** Every hit of `query` (already trimmed and non-empty): orders first, then payouts and refunds, then strays. */
export async function searchAdmin(ctx: Context, query: string): Promise<SearchHit[]> {
  const [orderHits, payoutHits, strayHits] = await Promise.all([
    searchOrders(ctx, query),
    searchPayouts(ctx, query),
    searchStrays(ctx, query),
  ]);
  return [...orderHits, ...payoutHits, ...strayHits];
}
