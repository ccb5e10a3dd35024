/**
 * What a sweep costs in TRX (burn mode, DESIGN.md 7): the deposit address burns TRX for the energy
 * and bandwidth of its USDT transfer, so the hot wallet first sends it exactly that, with a margin,
 * less what the address already holds. Pure: everything it needs is read from the chain by the caller.
 */

/** Energy estimates drift with contract state between the estimate and the sweep: 10% margin. */
export const ENERGY_MARGIN_PERCENT = 110n;
/** fee_limit of the sweep transaction: the estimate with 50% head room; unused energy is not burned. */
export const FEE_LIMIT_PERCENT = 150n;
/** Size java-tron bills for a USDT transfer from a single-signature account (raw ~270 B + sig + 64). */
export const SWEEP_TX_BYTES = 345n;

export interface ChainPrices {
  /** sun per energy unit (getEnergyFee) */
  energyPriceSun: bigint;
  /** sun per bandwidth byte (getTransactionFee) */
  bandwidthPriceSun: bigint;
}

export interface FundingInput extends ChainPrices {
  /** Energy the transfer needs (estimateenergy from the deposit address). */
  energy: bigint;
  /** The deposit address's free bandwidth left today, in bytes (600 for a fresh account). */
  freeBandwidth: bigint;
  /** TRX (sun) the deposit address holds already. */
  balanceSun: bigint;
}

export interface FundingPlan {
  /** TRX (sun) the sweep transaction will burn at most, margin included. */
  needSun: bigint;
  /** TRX (sun) the hot wallet must send; 0 when the address already holds enough. */
  sendSun: bigint;
  /** fee_limit for the sweep transaction (sun). */
  feeLimitSun: bigint;
}

export function planFunding(i: FundingInput): FundingPlan {
  const energySun = (i.energy * i.energyPriceSun * ENERGY_MARGIN_PERCENT + 99n) / 100n;
  const bandwidthSun = i.freeBandwidth >= SWEEP_TX_BYTES ? 0n : SWEEP_TX_BYTES * i.bandwidthPriceSun;
  const needSun = energySun + bandwidthSun;
  const sendSun = needSun > i.balanceSun ? needSun - i.balanceSun : 0n;
  return { needSun, sendSun, feeLimitSun: sweepFeeLimit(i) };
}

/** fee_limit of the sweep transaction (sun): the energy estimate at the current price, +50%. */
export function sweepFeeLimit(i: ChainPrices & { energy: bigint }): bigint {
  return (i.energy * i.energyPriceSun * FEE_LIMIT_PERCENT + 99n) / 100n;
}

/** Backoff after the n-th failed attempt (1-based): 10 s, 20 s, 40 s … capped at 30 minutes. */
export function sweepBackoffMs(attempt: number): number {
  return Math.min(10_000 * 2 ** Math.max(0, attempt - 1), 30 * 60_000);
}

/** Attempts before a sweep is failed and reported (sweep_failed); an operator may retry-sweep. */
export const SWEEP_MAX_ATTEMPTS = 8;

/** DelegateResource moves whole TRX of stake at least (java-tron refuses less than 1 TRX). */
export const MIN_DELEGATION_SUN = 1_000_000n;

/** The chain's energy economy: energy per staked TRX = TotalEnergyLimit / TotalEnergyWeight (TRX). */
export interface EnergyEconomy {
  totalEnergyLimit: bigint;
  totalEnergyWeight: bigint;
}

/**
 * Staked sun whose delegation gives at least `energy` now: whole TRX, rounded up, at least 1 TRX.
 * java-tron gives a delegation floor(trx x limit / weight) energy, so this is the smallest stake that
 * is enough.
 */
export function stakeForEnergy(energy: bigint, e: EnergyEconomy): bigint {
  if (e.totalEnergyLimit <= 0n) throw new RangeError("the chain reports no energy limit");
  const weight = e.totalEnergyWeight > 0n ? e.totalEnergyWeight : 1n;
  const trx = (energy * weight + e.totalEnergyLimit - 1n) / e.totalEnergyLimit;
  const sun = trx * 1_000_000n;
  return sun < MIN_DELEGATION_SUN ? MIN_DELEGATION_SUN : sun;
}

/** Energy a stake of `sun` gives now (rounded down, as java-tron does). */
export function energyOfStake(sun: bigint, e: EnergyEconomy): bigint {
  const weight = e.totalEnergyWeight > 0n ? e.totalEnergyWeight : 1n;
  return ((sun / 1_000_000n) * e.totalEnergyLimit) / weight;
}

/** The energy a delegate-mode sweep asks for: the estimate plus the same 10% margin as burn mode. */
export function energyWithMargin(energy: bigint): bigint {
  return (energy * ENERGY_MARGIN_PERCENT + 99n) / 100n;
}
