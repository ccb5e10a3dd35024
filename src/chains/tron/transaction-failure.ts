import type { TransactionInfo } from "@stablegate/tron/node-types";

/**
 * Why a transaction failed on chain (its receipt's result, or FAILED), or null when it succeeded.
 * The sweeper and the payout sender judge their own transactions by it.
 */
export function chainFailure(info: TransactionInfo): string | null {
  const result = info.receipt?.result;
  if (info.result === "FAILED" || (result !== undefined && result !== "SUCCESS")) return result ?? "FAILED";
  return null;
}
