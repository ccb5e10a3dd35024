/**
 * The refund and payout sender (DESIGN.md 14): claims approved payouts under a lease and advances
 * each through sign, store, broadcast and wait. Any number of workers may run it.
 */
import type { Context } from "../context.js";
import { runEvmPayouts } from "../payouts/evm-send.js";
import { runDuePayouts } from "../payouts/send-payouts.js";
import { leaseHolder } from "../db/lease-holder.js";
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
 * wallet's key (src/payouts/evm-send.ts): its transfers go through that chain's outbox. Its leases
 * are tied to this process's liveness lock (src/db/lease-holder.ts): when the process dies, the
 * next worker's claim takes its payouts at once rather than after EVM_PAYOUT_LEASE_MS. A round that
 * claimed any runs the next at once (the claim skips payouts whose transaction is on its way).
 */
function startEvmPayoutLoops(ctx: Context): Loop[] {
  if (ctx.config.evmWallet.hotWalletPrivateKey === undefined) return [];
  const chains = ctx.chains.list.filter((chain) => chain.nonces !== undefined);
  if (chains.length === 0) return [];
  const holder = leaseHolder(ctx.database);
  const loops = chains.map((chain) =>
    startLoop({
      name: `payout-sender-${chain.id}`,
      log: ctx.log,
      intervalMs: 1_000,
      task: async () => {
        const owner = await holder.owner(`evm-payout-sender-${chain.id}-${process.pid}`);
        return (await runEvmPayouts(ctx, chain.id, { owner, limit: PAYOUT_ROUND })).claimed > 0;
      },
    }),
  );
  return [
    ...loops,
    {
      name: "payout-lease-holder",
      wake: () => undefined,
      async stop() {
        await Promise.all(loops.map((loop) => loop.stop()));
        await holder.close();
      },
    },
  ];
}
