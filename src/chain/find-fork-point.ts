/**
 * The highest scanned block that is still on the node's chain. Block hashes chain, so if the node
 * agrees with the record at block n it agrees at every block below n: a binary search over the
 * record finds the fork point in O(log n) node calls. undefined when even the oldest recorded block
 * is not on the chain (the chain was reset, or the node serves another network).
 */
import type { Context } from "../context.js";
import type { BlockRef } from "./cursor.js";
import { scannedRange, storedBlockHash } from "./cursor.js";
import type { RetryTiming } from "../chains/backoff.js";
import type { Chain } from "../chains/chain.js";

export async function findForkPoint(
  ctx: Context,
  chain: Chain,
  highest: number,
  signal: AbortSignal,
  retry?: RetryTiming,
): Promise<BlockRef | undefined> {
  const range = await scannedRange(ctx, highest, chain.id);
  if (!range) return undefined;
  const onChain = async (n: number): Promise<string | undefined> => {
    const stored = await storedBlockHash(ctx, n, chain.id);
    if (stored === undefined) return undefined;
    const hash = await chain.blockHash(n, { signal, log: ctx.log, retry });
    return hash === stored ? stored : undefined;
  };

  let low = range.low;
  const lowHash = await onChain(low);
  if (lowHash === undefined) return undefined;
  let lowRef: BlockRef = { number: low, hash: lowHash };
  let high = range.high;
  const highHash = await onChain(high);
  if (highHash !== undefined) return { number: high, hash: highHash };
  // Invariant: `low` is on the chain, `high` is not.
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    const hash = await onChain(mid);
    if (hash !== undefined) {
      low = mid;
      lowRef = { number: mid, hash };
    } else {
      high = mid;
    }
  }
  return lowRef;
}
