/**
 * A chain's newest final block for the dashboard: one bounded attempt (retried within 1.5 s), null
 * when the chain does not answer in time or has no final block yet. Never used to decide an
 * outcome: the confirmer reads finality itself.
 */
import type { Chain } from "../chains/chain.js";
import type { Context } from "../context.js";

const FINAL_TIMEOUT_MS = 1500;

export async function finalizedHead(ctx: Context, chain: Chain): Promise<number | null> {
  try {
    const ref = await chain.finalHead({
      signal: AbortSignal.timeout(FINAL_TIMEOUT_MS),
      log: ctx.log,
      retry: { baseMs: 100, capMs: 500 },
    });
    return ref.number >= 0 ? ref.number : null;
  } catch {
    return null;
  }
}
