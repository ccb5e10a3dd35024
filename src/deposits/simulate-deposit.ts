/**
 * Sandbox deposits (devnet only, like simulatePayment): send a real signed transfer of the address's
 * currency on the address's chain from that chain's devnet faucet to one of the merchant's static
 * addresses. The scanner then sees it as any
 * customer's deposit: detected, confirmed, webhooks. Any other network: NOT_FOUND.
 */
import { and, eq, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import { depositAddresses } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { formatAmount, parseAmount } from "../money.js";
import { isNodeCallError } from "../chains/node-call-error.js";
import { displayAddress } from "../chains/address-display.js";
import { isChainId, type ChainId, type Currency } from "../chains/chain-types.js";

export interface SimulatedDeposit {
  deposit_address_id: string;
  tx_hash: string;
  amount: string;
  from_address: string;
  to_address: string;
  chain: ChainId;
  currency: Currency;
  network: "devnet";
}

export async function simulateDeposit(
  ctx: Context,
  input: { depositAddressId: string; merchantId?: string; amount: string },
  origin?: AuditOrigin,
): Promise<SimulatedDeposit> {
  const conditions: SQL[] = [eq(depositAddresses.id, input.depositAddressId)];
  if (input.merchantId !== undefined) conditions.push(eq(depositAddresses.merchantId, input.merchantId));
  const [found] = isUuid(input.depositAddressId)
    ? await ctx.db
        .select({
          id: depositAddresses.id,
          address: depositAddresses.address,
          chain: depositAddresses.chain,
          currency: depositAddresses.currency,
        })
        .from(depositAddresses)
        .where(and(...conditions))
    : [];
  if (!found) throw new AppError("NOT_FOUND", "deposit address not found");
  const chain = isChainId(found.chain) ? ctx.chains.get(found.chain) : undefined;
  const faucet = chain?.faucet;
  if (!chain || !faucet)
    throw new AppError(
      "NOT_FOUND",
      "simulated deposits exist only on a devnet chain (<CHAIN>_NETWORK=devnet)",
    );
  const currency = found.currency as Currency;
  const micro = parseAmount(input.amount);
  if (micro === null || micro <= 0n)
    throw new AppError("VALIDATION_ERROR", "amount must be a decimal string greater than 0");
  if (chain.tokens.length === 0)
    throw new AppError("SERVICE_UNAVAILABLE", "the devnet is not running", { retryAfter: 5 });
  try {
    const sent = await faucet.pay(found.address, currency, micro);
    ctx.log.info({ depositAddressId: found.id, txHash: sent.txHash }, "deposit simulated");
    // As simulatePayment: the change is a devnet transfer, its audit row follows the broadcast.
    if (origin) {
      await appendAudit(ctx.db, {
        ...origin,
        action: "deposit_address.simulate_deposit",
        targetType: "deposit_address",
        targetId: found.id,
        after: { amount: formatAmount(micro), tx_hash: sent.txHash },
        at: ctx.clock.now(),
      });
    }
    return {
      deposit_address_id: found.id,
      tx_hash: sent.txHash,
      amount: formatAmount(micro),
      from_address: sent.from,
      to_address: displayAddress(chain.id, found.address),
      chain: chain.id,
      currency,
      network: "devnet",
    };
  } catch (error) {
    if (isNodeCallError(error)) {
      throw new AppError("SERVICE_UNAVAILABLE", "the devnet did not accept the transfer, retry shortly", {
        retryAfter: 2,
        cause: error,
      });
    }
    throw error;
  }
}
