/**
 * Sandbox payments (the devnet's answer to Stripe's test mode): pay one of the merchant's orders
 * from the devnet faucet with a real signed USDT transfer, broadcast to the node the service
 * watches. The scanner then sees it like any customer's payment, so the order moves through
 * detected and confirmed (or underpaid/overpaid) and the webhooks are sent as in production.
 * On any other network there is no such route: NOT_FOUND.
 */
import { and, eq, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import { orders } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { formatAmount, parseAmount } from "../money.js";
import { isNodeCallError } from "../chains/node-call-error.js";
import { isChainId, isCurrency } from "../chains/chain-types.js";

export interface SimulatedPayment {
  order_id: string;
  tx_hash: string;
  amount: string;
  from_address: string;
  to_address: string;
  network: "devnet";
}

/**
 * `merchantId` limits it to that merchant's orders (the merchant API); the admin dashboard passes
 * none. `amount` (6-decimal string) defaults to the order's amount_expected; a different one
 * simulates an underpayment or overpayment. Paying an order that is no longer pending simulates a
 * late payment.
 */
export async function simulatePayment(
  ctx: Context,
  input: { orderId: string; merchantId?: string; amount?: string },
  origin?: AuditOrigin,
): Promise<SimulatedPayment> {
  if (!ctx.chains.list.some((c) => c.faucet)) {
    throw new AppError("NOT_FOUND", "simulated payments exist only on the devnet (TRON_NETWORK=devnet)");
  }
  const conditions: SQL[] = [eq(orders.id, input.orderId)];
  if (input.merchantId !== undefined) conditions.push(eq(orders.merchantId, input.merchantId));
  const [order] = isUuid(input.orderId)
    ? await ctx.db
        .select({
          id: orders.id,
          address: orders.address,
          amountExpected: orders.amountExpected,
          chain: orders.chain,
          currency: orders.currency,
        })
        .from(orders)
        .where(and(...conditions))
    : [];
  if (!order) throw new AppError("NOT_FOUND", "order not found");
  // The order's own chain and token: a payment on another would be a stray.
  const chain = isChainId(order.chain) ? ctx.chains.get(order.chain) : undefined;
  const faucet = chain?.faucet;
  if (!chain || !faucet) {
    throw new AppError(
      "NOT_FOUND",
      `simulated payments exist only on a devnet; ${order.chain} is not one here`,
    );
  }
  if (!isCurrency(order.currency))
    throw new AppError("NOT_FOUND", `no ${order.currency} token on ${chain.id}`);
  const micro = input.amount === undefined ? order.amountExpected : parseAmount(input.amount);
  if (micro === null || micro <= 0n) {
    throw new AppError("VALIDATION_ERROR", "amount must be a decimal string greater than 0");
  }
  if (chain.tokens.length === 0)
    throw new AppError("SERVICE_UNAVAILABLE", "the devnet is not running", { retryAfter: 5 });
  try {
    const sent = await faucet.pay(order.address, order.currency, micro);
    ctx.log.info(
      { orderId: order.id, txHash: sent.txHash, amount: formatAmount(micro) },
      "payment simulated",
    );
    // The change is a devnet transfer, not a row of ours: its audit row follows the broadcast.
    if (origin) {
      await appendAudit(ctx.db, {
        ...origin,
        action: "order.simulate_payment",
        targetType: "order",
        targetId: order.id,
        after: { amount: formatAmount(micro), tx_hash: sent.txHash },
        at: ctx.clock.now(),
      });
    }
    return {
      order_id: order.id,
      tx_hash: sent.txHash,
      amount: formatAmount(micro),
      from_address: sent.from,
      to_address: order.address,
      network: "devnet",
    };
  } catch (error) {
    if (isNodeCallError(error)) {
      ctx.log.warn(
        { orderId: order.id, kind: error.kind, nodeCode: error.code },
        "payment simulation failed",
      );
      throw new AppError("SERVICE_UNAVAILABLE", "the devnet did not accept the transfer, retry shortly", {
        retryAfter: 2,
        cause: error,
      });
    }
    throw error;
  }
}
