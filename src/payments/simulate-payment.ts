/**
 * Sandbox payments (the devnet's answer to Stripe's test mode): pay one of the merchant's orders
 * from the devnet faucet with a real signed USDT transfer, broadcast to the node the service
 * watches. The scanner then sees it like any customer's payment, so the order moves through
 * detected and confirmed (or underpaid/overpaid) and the webhooks are sent as in production.
 * On any other network there is no such route: NOT_FOUND.
 */
import type { Context } from "../context.js";
import { sendFaucetUsdt } from "../chain/faucet-transfer.js";
import { AppError } from "../errors.js";
import { formatAmount, parseAmount } from "../money.js";
import { TronNodeError } from "../tron/node-errors.js";
import { getOrder } from "./get-order.js";

export interface SimulatedPayment {
  order_id: string;
  tx_hash: string;
  amount: string;
  from_address: string;
  to_address: string;
  network: "devnet";
}

/**
 * `amount` (6-decimal string) defaults to the order's amount_expected; a different one simulates an
 * underpayment or overpayment. Paying an order that is no longer pending simulates a late payment.
 */
export async function simulatePayment(
  ctx: Context,
  merchantId: string,
  orderId: string,
  amount?: string,
): Promise<SimulatedPayment> {
  if (ctx.config.tronNetwork !== "devnet") {
    throw new AppError("NOT_FOUND", "simulated payments exist only on the devnet (TRON_NETWORK=devnet)");
  }
  const order = await getOrder(ctx, merchantId, orderId);
  const micro = parseAmount(amount ?? order.amount_expected);
  if (micro === null || micro <= 0n) {
    throw new AppError("VALIDATION_ERROR", "amount must be a decimal string greater than 0");
  }
  const usdtContract = ctx.chain.usdtContract;
  if (!usdtContract)
    throw new AppError("SERVICE_UNAVAILABLE", "the devnet is not running", { retryAfter: 5 });
  try {
    const sent = await sendFaucetUsdt(ctx.chain.client, { usdtContract, to: order.address, amount: micro });
    ctx.log.info(
      { orderId: order.id, txHash: sent.txHash, amount: formatAmount(micro) },
      "payment simulated",
    );
    return {
      order_id: order.id,
      tx_hash: sent.txHash,
      amount: formatAmount(micro),
      from_address: sent.from,
      to_address: order.address,
      network: "devnet",
    };
  } catch (error) {
    if (error instanceof TronNodeError) {
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
