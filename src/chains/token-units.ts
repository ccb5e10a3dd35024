/**
 * The one conversion between a token's own units and the service's micro-units. Orders, balances
 * and the ledger count micro-units (6 decimals) whatever the token; a chain reports what its
 * Transfer log says, in the token's units with the token's decimals (6 for TRON USDT and the
 * Ethereum tokens, 18 on BSC). The conversion is exact: what does not make a whole micro-unit is
 * returned as the remainder, in token units, for the transfer's record, never rounded into a
 * merchant's money and never lost from the books (micro * 10^(decimals-6) + remainder = units).
 */

/** Decimals of the service's unit (micro-USDT / micro-USDC). */
export const MICRO_DECIMALS = 6;

/** Ample for any ERC-20 (uint8 decimals; real tokens use 6 or 18). */
const MAX_DECIMALS = 77;

export interface MicroAmount {
  /** Whole micro-units. */
  micro: bigint;
  /** Token units below one micro-unit (0n for tokens of 6 or fewer decimals). */
  remainder: bigint;
}

function checkDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
    throw new RangeError(`token decimals must be an integer from 0 to ${MAX_DECIMALS}, got ${decimals}`);
  }
}

/** `units` of a token with `decimals` as whole micro-units and the sub-micro remainder. */
export function unitsToMicro(units: bigint, decimals: number): MicroAmount {
  checkDecimals(decimals);
  if (units < 0n) throw new RangeError("a token amount is never negative");
  if (decimals <= MICRO_DECIMALS) {
    return { micro: units * 10n ** BigInt(MICRO_DECIMALS - decimals), remainder: 0n };
  }
  const scale = 10n ** BigInt(decimals - MICRO_DECIMALS);
  return { micro: units / scale, remainder: units % scale };
}

/**
 * Micro-units (and a remainder, as unitsToMicro gave it) back in the token's units: what a sweep
 * or payout of that many micro-units moves. Throws where the token cannot hold the amount exactly
 * (fewer than 6 decimals and a fraction it cannot express, or a remainder on such a token).
 */
export function microToUnits(micro: bigint, decimals: number, remainder = 0n): bigint {
  checkDecimals(decimals);
  if (micro < 0n || remainder < 0n) throw new RangeError("a token amount is never negative");
  if (decimals >= MICRO_DECIMALS) {
    const scale = 10n ** BigInt(decimals - MICRO_DECIMALS);
    if (remainder >= scale) throw new RangeError("the remainder is a whole micro-unit or more");
    return micro * scale + remainder;
  }
  const scale = 10n ** BigInt(MICRO_DECIMALS - decimals);
  if (remainder !== 0n || micro % scale !== 0n) {
    throw new RangeError(`a token of ${decimals} decimals cannot hold ${micro} micro-units exactly`);
  }
  return micro / scale;
}

/**
 * `units` of a token (or a native coin) with `decimals` as an exact decimal string with all its
 * decimals: 500000000000 of 18 decimals is "0.000000500000000000", 1.5 ETH in wei
 * "1.500000000000000000". For display and replies; never parsed back into money.
 */
export function formatUnits(units: bigint, decimals: number): string {
  checkDecimals(decimals);
  if (units < 0n) throw new RangeError("a token amount is never negative");
  if (decimals === 0) return units.toString();
  const digits = units.toString().padStart(decimals + 1, "0");
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** Every EVM chain's native coin (ETH, BNB, POL) has 18 decimals: wei as its exact decimal string. */
export function formatWei(wei: bigint): string {
  return formatUnits(wei, 18);
}
