/**
 * The chain and currency of a refund or payout (DESIGN.md 14 and 16). A payout names both (default:
 * the primary chain, tron, and USDT, so integrations that name neither are unchanged); a pair the
 * deployment does not enable is 400 UNSUPPORTED_CURRENCY. A refund of an order goes out in the
 * order's currency, on the order's chain unless it names another enabled chain of that currency
 * (the merchant's balance is per currency, whatever chain the money came on). Replies show the
 * address in the chain's display form (EIP-55 on EVM) and the chain's network name.
 */
import type { Chain } from "../chains/chain.js";
import { CURRENCIES, isChainId, isCurrency, type Currency } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import { AppError } from "../errors.js";
import { orderChain } from "../payments/create-order.js";
import type { PayoutRow } from "./payout-types.js";

/** What a creation request names: both optional. */
export interface ChainChoice {
  chain?: string | undefined;
  currency?: string | undefined;
}

export const DEFAULT_PAYOUT_CURRENCY: Currency = "USDT";

function currencyOf(value: string | undefined): Currency {
  if (value === undefined) return DEFAULT_PAYOUT_CURRENCY;
  if (!isCurrency(value)) {
    throw new AppError(
      "UNSUPPORTED_CURRENCY",
      `body.currency: ${JSON.stringify(value)} is not a currency (one of ${CURRENCIES.join(", ")})`,
    );
  }
  return value;
}

/** The enabled chain and currency a payout names, or UNSUPPORTED_CURRENCY. */
export function payoutChain(ctx: Context, choice: ChainChoice): { chain: Chain; currency: Currency } {
  const currency = currencyOf(choice.currency);
  return { chain: orderChain(ctx, choice.chain, currency), currency };
}

/**
 * A refund of money that arrived in `source.currency` on `source.chain`: that currency, on that
 * chain unless the request names another enabled chain taking it.
 */
export function refundChain(
  ctx: Context,
  source: { chain: string; currency: string },
  choice: ChainChoice,
): { chain: Chain; currency: Currency } {
  const currency = currencyOf(source.currency);
  if (choice.currency !== undefined && choice.currency !== currency) {
    throw new AppError(
      "UNSUPPORTED_CURRENCY",
      `body.currency: the money came in ${currency}; a refund of it goes out in ${currency}`,
    );
  }
  const named = choice.chain ?? source.chain;
  if (choice.chain === undefined && isChainId(named) && !ctx.chains.get(named)) {
    throw new AppError(
      "UNSUPPORTED_CURRENCY",
      `the money came on ${named}, which this deployment no longer enables; name a chain taking ${currency}`,
    );
  }
  return { chain: orderChain(ctx, named, currency), currency };
}

/** The row's chain as this process runs it, or undefined when the chain is no longer enabled. */
export function chainOfPayout(ctx: Context, row: Pick<PayoutRow, "chain">): Chain | undefined {
  return isChainId(row.chain) ? ctx.chains.get(row.chain) : undefined;
}

/** The network name replies and webhooks show: the chain's at creation (TRON's before 0029). */
export function payoutNetwork(ctx: Context, row: Pick<PayoutRow, "network">): string {
  return row.network ?? ctx.config.tronNetwork;
}

/** The destination as people read it (EIP-55 on EVM), or null while a refund awaits its address. */
export function displayAddress(ctx: Context, row: Pick<PayoutRow, "chain" | "address">): string | null {
  if (row.address === null) return null;
  return chainOfPayout(ctx, row)?.address.display(row.address) ?? row.address;
}

/** The stored form of an address a request gives, to compare with a stored one (replays). */
export function storedAddress(ctx: Context, row: Pick<PayoutRow, "chain">, address: string): string {
  return chainOfPayout(ctx, row)?.address.normalise(address) ?? address;
}
