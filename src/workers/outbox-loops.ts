/**
 * The EVM outbox's pass (src/outbox/run-outbox.ts), one loop per chain that sends by nonce, where
 * this process holds the hot wallet's key. Its first pass sends every pending transaction's stored
 * bytes again (a restart); any number of workers may run it.
 */
import type { Context } from "../context.js";
import { runOutbox } from "../outbox/run-outbox.js";
import { signerLookup } from "../outbox/signers.js";
import { startLoop, type Loop } from "./loop.js";

export function startOutboxLoops(ctx: Context): Loop[] {
  if (ctx.config.evmWallet.hotWalletPrivateKey === undefined) return [];
  return ctx.chains.list
    .filter((chain) => chain.nonces !== undefined)
    .map((chain) => {
      const signers = signerLookup(ctx, chain.id);
      let first = true;
      return startLoop({
        name: `outbox-${chain.id}`,
        log: ctx.log,
        intervalMs: 2_000,
        task: async (signal) => {
          await runOutbox(ctx, chain.id, { signers, resendAll: first, signal });
          first = false;
        },
      });
    });
}
