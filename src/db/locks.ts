/** Advisory lock keys. One number per purpose, shared by every process of a deployment. */
export const LOCK_KEYS = {
  migrations: 740_100_001,
  scanner: 740_100_002,
  /** delegate-mode sweeps: one reservation of the hot wallet's stake at a time */
  sweepStake: 740_100_012,
} as const;
