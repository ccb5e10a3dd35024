// Mainnet's resource model, reduced to what a payment gateway meets: free bandwidth, burning TRX for
// bandwidth and energy, and the account-creation fees. Staking and delegation are not emulated.
import type { Account } from "./state.js";

export const SUN_PER_TRX = 1_000_000n;
export const ENERGY_PRICE_SUN = 100n;
export const BANDWIDTH_PRICE_SUN = 1_000n;
export const FREE_NET_LIMIT = 600;
/** getCreateAccountFee: burned for the bandwidth of a transaction that creates an account. */
export const CREATE_ACCOUNT_NET_FEE = 100_000n;
/** getCreateNewAccountFeeInSystemContract: charged by TransferContract when it creates the recipient. */
export const CREATE_ACCOUNT_FEE = 1_000_000n;
export const MAX_FEE_LIMIT = 15_000_000_000n;
/** java-tron adds the largest possible result (64 bytes) to the size it bills. */
export const MAX_RESULT_SIZE_IN_TX = 64;
const WINDOW_MS = 24 * 3600 * 1000;

/**
 * Energy the emulated TetherToken burns, calibrated to mainnet: a transfer that writes a fresh storage
 * slot (the recipient held nothing) costs about 65k more than one that updates an existing slot.
 */
export const ENERGY = {
  transferToHolder: 64_285n,
  transferToNewHolder: 130_285n,
  transferFromToHolder: 69_285n,
  transferFromToNewHolder: 135_285n,
  approve: 22_315n,
  revert: 9_420n,
  view: 1_122n,
} as const;

/** Free bandwidth still available to the account at `now` (usage recovers linearly over 24 h). */
export function freeNetAvailable(acc: Account, now: number): number {
  return FREE_NET_LIMIT - freeNetUsedAt(acc, now);
}

export function freeNetUsedAt(acc: Account, now: number): number {
  const elapsed = now - acc.latestConsumeFreeTime;
  if (elapsed >= WINDOW_MS || acc.freeNetUsed <= 0) return 0;
  if (elapsed <= 0) return acc.freeNetUsed;
  return Math.ceil((acc.freeNetUsed * (WINDOW_MS - elapsed)) / WINDOW_MS);
}

/** Bytes java-tron bills for a transaction: its serialised size (raw + signatures) plus 64. */
export function billedBytes(rawLength: number, signatureCount: number): number {
  const rawField = 1 + varintLength(rawLength) + rawLength;
  return rawField + signatureCount * 67 + MAX_RESULT_SIZE_IN_TX;
}

function varintLength(n: number): number {
  let len = 1;
  while (n > 0x7f) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}
