/**
 * What the hosted checkout page polls. Public, so it shows only what the payer needs: never the
 * callback_url, metadata, external_id or anything of the merchant beyond its name.
 */
import { CHAIN_LABELS, type ChainId, type Currency } from "../chains/chain-types.js";
import { eq } from "drizzle-orm";
import type { Chain } from "../chains/chain.js";
import type { Context } from "../context.js";
import { merchants, orders } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { formatAmount } from "../money.js";
import { addressExplorerUrl, txExplorerUrl } from "./explorer.js";
import { latestOutcomeEvent } from "../orders/accept-order.js";
import { STATUSES_WITH_OUTCOME } from "../orders/transitions.js";
import type { CheckoutOutcome, CheckoutStatus } from "./checkout-status.js";
import { confirmationsSql } from "./merchant-order.js";

export type { CheckoutStatus } from "./checkout-status.js";

export async function getCheckoutStatus(ctx: Context, orderId: string): Promise<CheckoutStatus> {
  const [row] = isUuid(orderId)
    ? await ctx.db
        .select({
          id: orders.id,
          status: orders.status,
          merchantName: merchants.name,
          amountExpected: orders.amountExpected,
          amountReceived: orders.amountReceived,
          currency: orders.currency,
          chain: orders.chain,
          network: orders.network,
          address: orders.address,
          txHash: orders.txHash,
          expiresAt: orders.expiresAt,
          confirmations: confirmationsSql,
        })
        .from(orders)
        .innerJoin(merchants, eq(merchants.id, orders.merchantId))
        .where(eq(orders.id, orderId))
    : [];
  if (!row) throw new AppError("NOT_FOUND", "order not found");
  const outcome = await outcomeOf(ctx, row);
  const chainId = row.chain as ChainId;
  const chain = ctx.chains.get(chainId);
  return {
    id: row.id,
    status: row.status,
    merchant_name: row.merchantName,
    amount_expected: formatAmount(row.amountExpected),
    amount_received: formatAmount(row.amountReceived),
    currency: row.currency as Currency,
    chain: chainId,
    network: row.network,
    chain_name: CHAIN_LABELS[chainId].name,
    token_standard: CHAIN_LABELS[chainId].tokenStandard,
    address: chain ? chain.address.display(row.address) : row.address,
    payment_uri: chain ? await paymentUri(ctx, chain, row) : null,
    tx_hash: row.txHash,
    confirmations: row.confirmations,
    confirmations_required: ctx.config.confirmations,
    expires_at: row.expiresAt.toISOString(),
    explorer_url:
      row.txHash === null
        ? addressExplorerUrl(ctx.config, row.address)
        : txExplorerUrl(ctx.config, row.txHash),
    outcome,
  };
}

/** Statuses in which the order's address takes the payer's money (what is still owed). */
const TAKING_PAYMENT: readonly string[] = ["pending", "underpaid"];

/**
 * The wallet request for what is still owed, while the order takes payment. A chain that cannot
 * be read now (an EVM chain reads its id and token decimals once) leaves it null: the page still
 * shows the address and amount.
 */
async function paymentUri(
  ctx: Context,
  chain: Chain,
  row: {
    id: string;
    status: string;
    currency: string;
    address: string;
    amountExpected: bigint;
    amountReceived: bigint;
  },
): Promise<string | null> {
  if (!TAKING_PAYMENT.includes(row.status)) return null;
  const owed = row.amountExpected - row.amountReceived;
  if (owed <= 0n) return null;
  try {
    return await chain.paymentUri(row.currency as Currency, row.address, owed);
  } catch (error) {
    ctx.log.warn({ err: error, orderId: row.id, chain: chain.id }, "checkout: no payment URI");
    return null;
  }
}

/**
 * The outcome in force: the amounts decide, except that a short payment the merchant or an operator
 * accepted (its latest outcome event is manually_resolved) is settled. Read only for a short order
 * with an outcome, the one case the amounts cannot tell.
 */
async function outcomeOf(
  ctx: Context,
  row: { id: string; status: CheckoutStatus["status"]; amountExpected: bigint; amountReceived: bigint },
): Promise<CheckoutOutcome | null> {
  if (!STATUSES_WITH_OUTCOME.includes(row.status)) return null;
  if (row.amountReceived > row.amountExpected) return "overpaid";
  if (row.amountReceived === row.amountExpected) return "paid";
  return (await latestOutcomeEvent(ctx.db, row.id)) === "manually_resolved" ? "accepted" : "underpaid";
}
