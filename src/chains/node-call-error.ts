/**
 * What every family's node client throws for a failed call, so retries and error replies need not
 * know the family: TRON's TronNodeError has these fields, and an EVM JSON-RPC client's error is
 * given them. `retryable` is true when the node or the network is at fault (429, 5xx, timeouts,
 * connection errors, malformed bodies), not the request.
 */
export interface NodeCallError extends Error {
  readonly kind: string;
  readonly retryable: boolean;
  /** From Retry-After on a 429. */
  readonly retryAfterMs?: number | undefined;
  /** The node's own error code, when it gave one. */
  readonly code?: string | undefined;
}

export function isNodeCallError(error: unknown): error is NodeCallError {
  if (!(error instanceof Error)) return false;
  const e = error as Partial<NodeCallError>;
  return typeof e.kind === "string" && typeof e.retryable === "boolean";
}
