import type { Config } from "../config.js";

/** Explorer link of a transaction; null when the deployment has no explorer configured. */
export function txExplorerUrl(config: Config, txHash: string): string | null {
  return config.explorer.txBaseUrl === undefined ? null : `${config.explorer.txBaseUrl}${txHash}`;
}

export function addressExplorerUrl(config: Config, address: string): string | null {
  return config.explorer.addressBaseUrl === undefined ? null : `${config.explorer.addressBaseUrl}${address}`;
}
