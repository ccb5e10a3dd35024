/**
 * The admin order detail (DESIGN.md 8): the order with every field, its events oldest first, the
 * payment transaction (the first transfer, with all transfers), the settlement, system meta and
 * the webhook deliveries.
 */
import type { ChainId, Currency } from "../chains/chain-types.js";
import { asc, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { merchants, orders, settlements, transfers, type OrderStatus } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { formatAmount, formatSun } from "../money.js";
import { addressExplorerUrl, txExplorerUrl } from "../payments/explorer.js";
import { confirmationsSql, checkoutUrl } from "../payments/merchant-order.js";
import { cursorName } from "../chain/cursor.js";
import { listOrderEvents, type OrderEventView } from "../payments/order-events.js";
import { scannerCursor } from "../db/schema.js";
import { listOrderWebhooks, type WebhookDeliveryView } from "../webhooks/list-order-webhooks.js";
import type { OperatorRole } from "../admin/operator-types.js";
import { orderActions, type OrderActionState } from "./order-actions.js";
import { orderResolutions, type ResolutionView } from "./order-resolutions.js";
import { displayAddress } from "../chains/address-display.js";

export interface AdminOrderView {
  id: string;
  external_id: string;
  merchant_id: string;
  merchant_name: string;
  address: string;
  amount_expected: string;
  amount_received: string;
  currency: Currency;
  /** The chain the order is paid on; `network` is that chain's network name. */
  chain: ChainId;
  network: string;
  status: OrderStatus;
  tx_hash: string | null;
  from_address: string | null;
  callback_url: string;
  checkout_url: string;
  metadata: Record<string, unknown> | null;
  confirmations: number;
  address_explorer_url: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
  detected_at: string | null;
  confirmed_at: string | null;
  completed_at: string | null;
}

export interface TransferView {
  tx_hash: string;
  log_index: number;
  from_address: string;
  to_address: string;
  amount: string;
  block_number: number;
  block_timestamp: string;
  status: "seen" | "confirmed";
  confirmations: number;
  explorer_url: string | null;
}

export interface TransactionView {
  tx_hash: string;
  from_address: string;
  to_address: string;
  /** The first transfer's amount; amount_received on the order is the confirmed total. */
  amount: string;
  block_number: number;
  block_timestamp: string;
  confirmations: number;
  explorer_url: string | null;
  transfers: TransferView[];
}

export interface SettlementView {
  status: string;
  sweep_tx_hash: string | null;
  fee_tx_hash: string | null;
  amount: string | null;
  fee_trx: string | null;
  cold_wallet_address: string | null;
  attempts: number;
  last_error: string | null;
  swept_at: string | null;
  explorer_url: string | null;
}

export interface OrderMeta {
  network: string;
  usdt_contract: string | null;
  tx_explorer_base_url: string | null;
  address_explorer_base_url: string | null;
  sweep_enabled: boolean;
  sweep_mode: string;
  confirmations_required: number;
}

export interface AdminOrderDetail {
  order: AdminOrderView;
  events: OrderEventView[];
  transaction: TransactionView | null;
  settlement: SettlementView | null;
  meta: OrderMeta;
  webhooks: WebhookDeliveryView[];
  /** Cancel, accept, attach done on this order (DESIGN.md 13). */
  resolutions: ResolutionView[];
  /** What the operator reading it may do now, each with the reason when not (order-actions.ts). */
  actions: OrderActionState[];
}

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

export function orderMeta(ctx: Context): OrderMeta {
  const { config } = ctx;
  return {
    network: config.tronNetwork,
    usdt_contract: config.usdtContract ?? null,
    tx_explorer_base_url: config.explorer.txBaseUrl ?? null,
    address_explorer_base_url: config.explorer.addressBaseUrl ?? null,
    sweep_enabled: config.sweepEnabled,
    sweep_mode: config.sweepMode,
    confirmations_required: config.confirmations,
  };
}

export async function getAdminOrder(
  ctx: Context,
  orderId: string,
  role: OperatorRole,
): Promise<AdminOrderDetail> {
  if (!isUuid(orderId)) throw new AppError("NOT_FOUND", "order not found");
  const [row] = await ctx.db
    .select({ order: orders, merchantName: merchants.name, confirmations: confirmationsSql })
    .from(orders)
    .innerJoin(merchants, eq(merchants.id, orders.merchantId))
    .where(eq(orders.id, orderId));
  if (!row) throw new AppError("NOT_FOUND", "order not found");
  const { order } = row;
  const [events, transferRows, [settlement], [cursor], webhooks] = await Promise.all([
    listOrderEvents(ctx.db, orderId),
    ctx.db
      .select()
      .from(transfers)
      .where(eq(transfers.orderId, orderId))
      .orderBy(asc(transfers.blockNumber), asc(transfers.logIndex)),
    ctx.db.select().from(settlements).where(eq(settlements.orderId, orderId)),
    ctx.db
      .select({ blockNumber: scannerCursor.blockNumber })
      .from(scannerCursor)
      .where(eq(scannerCursor.name, cursorName(order.chain as ChainId))),
    listOrderWebhooks(ctx, orderId),
  ]);
  const confirmationsOf = (blockNumber: number) =>
    cursor === undefined ? 0 : Math.max(0, cursor.blockNumber - blockNumber + 1);
  const transferViews: TransferView[] = transferRows.map((t) => ({
    tx_hash: t.txHash,
    log_index: t.logIndex,
    from_address: t.fromAddress,
    to_address: t.toAddress,
    amount: formatAmount(t.amount),
    block_number: t.blockNumber,
    block_timestamp: t.blockTimestamp.toISOString(),
    status: t.status,
    confirmations: confirmationsOf(t.blockNumber),
    explorer_url: txExplorerUrl(ctx.config, t.txHash),
  }));
  const first = transferViews[0];
  return {
    order: {
      id: order.id,
      external_id: order.externalId,
      merchant_id: order.merchantId,
      merchant_name: row.merchantName,
      address: displayAddress(order.chain, order.address),
      amount_expected: formatAmount(order.amountExpected),
      amount_received: formatAmount(order.amountReceived),
      currency: order.currency as Currency,
      chain: order.chain as ChainId,
      network: order.network,
      status: order.status,
      tx_hash: order.txHash,
      from_address: order.fromAddress,
      callback_url: order.callbackUrl,
      checkout_url: checkoutUrl(ctx.config, order.id),
      metadata: order.metadata ?? null,
      confirmations: row.confirmations,
      address_explorer_url: addressExplorerUrl(ctx.config, order.address),
      created_at: order.createdAt.toISOString(),
      updated_at: order.updatedAt.toISOString(),
      expires_at: order.expiresAt.toISOString(),
      detected_at: iso(order.detectedAt),
      confirmed_at: iso(order.confirmedAt),
      completed_at: iso(order.completedAt),
    },
    events,
    resolutions: orderResolutions(events),
    actions: orderActions(
      ctx,
      { order, events, settlementStatus: settlement?.status ?? null, webhooks },
      role,
    ),
    transaction:
      first === undefined
        ? null
        : {
            tx_hash: first.tx_hash,
            from_address: first.from_address,
            to_address: first.to_address,
            amount: first.amount,
            block_number: first.block_number,
            block_timestamp: first.block_timestamp,
            confirmations: first.confirmations,
            explorer_url: first.explorer_url,
            transfers: transferViews,
          },
    settlement:
      settlement === undefined
        ? null
        : {
            status: settlement.status,
            sweep_tx_hash: settlement.sweepTxHash,
            fee_tx_hash: settlement.feeTxHash,
            amount: settlement.amount === null ? null : formatAmount(settlement.amount),
            fee_trx: settlement.feeTrx === null ? null : formatSun(settlement.feeTrx),
            cold_wallet_address: settlement.coldWalletAddress,
            attempts: settlement.attempts,
            last_error: settlement.lastError,
            swept_at: iso(settlement.sweptAt),
            explorer_url:
              settlement.sweepTxHash === null ? null : txExplorerUrl(ctx.config, settlement.sweepTxHash),
          },
    meta: orderMeta(ctx),
    webhooks,
  };
}
