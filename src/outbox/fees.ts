/**
 * Fee caps of the outbox (docs/evm-transactions.md). A new transaction offers the node's suggested
 * tip and a max fee of twice the newest base fee plus the tip: room for six full blocks of base-fee
 * rises (+12.5% each) before it is priced out. A replacement raises both the tip and the max fee by
 * at least 12.5% (geth's pool takes a replacement at +10%; others ask more), and to the market's
 * where that is higher.
 */

export interface FeeCaps {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface MarketFees {
  baseFee: bigint;
  tip: bigint;
}

/** Raise of each cap on replacement, in per-mille (125 = +12.5%). */
export const REPLACEMENT_BUMP_PER_MILLE = 125n;

const bump = (v: bigint) => (v * (1000n + REPLACEMENT_BUMP_PER_MILLE) + 999n) / 1000n;
const max = (a: bigint, b: bigint) => (a > b ? a : b);

export function newCaps(market: MarketFees): FeeCaps {
  return { maxPriorityFeePerGas: market.tip, maxFeePerGas: market.baseFee * 2n + market.tip };
}

/** A transaction is below the market when it cannot pay the newest base fee plus the suggested tip. */
export function belowMarket(caps: FeeCaps, market: MarketFees): boolean {
  return caps.maxFeePerGas < market.baseFee + market.tip;
}

/**
 * The caps of a replacement of `old`: each >= +12.5%, and at least `fresh` (a new transaction's
 * caps at `market` unless the caller prices its own, as a deposit address's sweep does).
 */
export function replacementCaps(old: FeeCaps, market: MarketFees, fresh: FeeCaps = newCaps(market)): FeeCaps {
  const tip = max(bump(old.maxPriorityFeePerGas), fresh.maxPriorityFeePerGas);
  const maxFee = max(max(bump(old.maxFeePerGas), fresh.maxFeePerGas), tip);
  return { maxPriorityFeePerGas: tip, maxFeePerGas: maxFee };
}
