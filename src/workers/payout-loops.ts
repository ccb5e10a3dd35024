/**
 * The refund and payout sender (DESIGN.md 14): claims approved payouts under a lease and advances
 * each through sign, store, broadcast and wait. Any number of workers may run it.
 */
import type { Context } from "../context.js";
import { runEvmPayouts } from "../payouts/evm-send.js";
import { runDuePayouts } from "../payouts/send-payouts.js";
import { startLoop, type Loop } from "./loop.js";

/**
 * Payouts one round claims. A round that claimed any runs the next at once: more may be due by its
 * end (approvals, looks scheduled by earlier rounds); only an empty round waits, PAYOUT_IDLE_MS: a
 * look is timed for the moment its block should be solidified, so a long idle pause would add to
 * every payout's time (one claim statement per pause and worker).
 */
const PAYOUT_ROUND = 50;
const PAYOUT_IDLE_MS = 500;

export function startPayoutLoops(ctx: Context): Loop[] {
  return [
    startLoop({
      name: "payout-sender",
      log: ctx.log,
      intervalMs: PAYOUT_IDLE_MS,
      task: async () => (await runDuePayouts(ctx, { limit: PAYOUT_ROUND })).claimed > 0,
    }),
    ...startEvmPayoutLoops(ctx),
  ];
}

/**
 * One EVM payout sender per chain that sends by nonce, where this process holds the EVM hot
 * wallet's key (src/payouts/evm-send.ts): its transfers go through that chain's outbox.
 */
function startEvmPayoutLoops(ctx: Context): Loop[] {
  if (ctx.config.evmWallet.hotWalletPrivateKey === undefined) return [];
  return ctx.chains.list
    .filter((chain) => chain.nonces !== undefined)
    .map((chain) =>
      startLoop({
        name: `payout-sender-${chain.id}`,
        log: ctx.log,
        intervalMs: 1_000,
        task: async () => (await runEvmPayouts(ctx, chain.id, { limit: PAYOUT_ROUND })).submitted > 0,
      }),
    );
}
