/**
 * The order as the merchant API shows it, and the one query that reads it. Confirmations come
 * from the scanner's cursor: cursor block - first transfer's block + 1 (0 before any payment).
 */
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import { CHAIN_IDS, type ChainId, type Currency } from "../chains/chain-types.js";
import { cursorName } from "../chain/cursor.js";
import type { Config } from "../config.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { orders, type OrderStatus } from "../db/schema.js";
import { formatAmount } from "../money.js";
import { orderPageKeys } from "../orders/order-page-keys.js";
import { displayAddress } from "../chains/address-display.js";

export type OrderRow = typeof orders.$inferSelect;

export interface MerchantOrder {
  id: string;
  external_id: string;
  address: string;
  amount_expected: string;
  amount_received: string;
  currency: Currency;
  /** The chain the order is paid on; `network` is that chain's network name. */
  chain: ChainId;
  network: string;
  status: OrderStatus;
  tx_hash: string | null;
  callback_url: string;
  checkout_url: string;
  confirmations: number;
  created_at: string;
  expires_at: string;
  metadata: Record<string, unknown> | null;
}

/** The TRON scanner's cursor name (the name it had before there were chains). */
export const USDT_CURSOR = "usdt";

/** The scanner_cursor row of the order's own chain (cursor.ts, cursorName), as SQL. */
const orderCursorName = sql.raw(
  `CASE "orders"."chain" ${CHAIN_IDS.map((id) => `WHEN '${id}' THEN '${cursorName(id)}'`).join(" ")} END`,
);

/**
 * SQL for the confirmations of the order's first transfer, clamped at 0. The outer reference is
 * spelled "orders"."id" because Drizzle leaves columns unqualified in single-table selects, where
 * a bare "id" would resolve to the subquery's own table.
 */
export const confirmationsSql: SQL.Aliased<number> = sql<number>`greatest(0, coalesce(
    (SELECT c.block_number FROM scanner_cursor c WHERE c.name = ${orderCursorName})
    - (SELECT t.block_number FROM transfers t WHERE t.order_id = "orders"."id"
       ORDER BY t.block_number, t.log_index LIMIT 1)
    + 1, 0))::int`
  .mapWith(Number)
  .as("confirmations");

export function checkoutUrl(config: Config, orderId: string): string {
  return `${config.publicBaseUrl}/checkout/${orderId}`;
}

export function toMerchantOrder(config: Config, order: OrderRow, confirmations: number): MerchantOrder {
  return {
    id: order.id,
    external_id: order.externalId,
    address: displayAddress(order.chain, order.address),
    amount_expected: formatAmount(order.amountExpected),
    amount_received: formatAmount(order.amountReceived),
    currency: order.currency as Currency,
    chain: order.chain as ChainId,
    network: order.network,
    status: order.status,
    tx_hash: order.txHash,
    callback_url: order.callbackUrl,
    checkout_url: checkoutUrl(config, order.id),
    confirmations,
    created_at: order.createdAt.toISOString(),
    expires_at: order.expiresAt.toISOString(),
    metadata: order.metadata ?? null,
  };
}

export interface OrderWithConfirmations {
  order: OrderRow;
  confirmations: number;
}

/** Orders matching `where`, newest first, each with its confirmations, in one query. */
export async function selectOrders(
  db: Executor,
  where: SQL | undefined,
  page: { limit: number; offset: number } = { limit: 1, offset: 0 },
): Promise<OrderWithConfirmations[]> {
  return selectOrdersQuery(db, where, page);
}

/** The query of selectOrders, unexecuted (the list plan test explains it). */
export function selectOrdersQuery(
  db: Executor,
  where: SQL | undefined,
  page: { limit: number; offset: number },
) {
  const keys = orderPageKeys(db, where, page);
  return db
    .select({ order: orders, confirmations: confirmationsSql })
    .from(keys)
    .innerJoin(orders, eq(orders.id, keys.id))
    .orderBy(desc(keys.createdAt), desc(keys.id));
}

export async function findMerchantOrderByExternalId(
  ctx: Context,
  merchantId: string,
  externalId: string,
): Promise<OrderWithConfirmations | undefined> {
  const [row] = await selectOrders(
    ctx.db,
    and(eq(orders.merchantId, merchantId), eq(orders.externalId, externalId)),
  );
  return row;
}
