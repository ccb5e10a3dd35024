/**
 * The order-side background loops: keep the deposit address pool filled, expire unpaid orders,
 * sweep paid addresses to the cold wallet and return addresses to the pool after quarantine. Each calls one idempotent domain function.
 */
import type { Context } from "../context.js";
import { expireOrders } from "../payments/expire-orders.js";
import { fillAddressPool } from "../wallet/fill-address-pool.js";
import { reconcileDelegations } from "../sweeps/reconcile-delegations.js";
import { runDueSweeps } from "../sweeps/run-sweeps.js";
import { releaseAddresses } from "../wallet/release-addresses.js";
import { startLoop, type Loop } from "./loop.js";

/** The pool filler: runs back to back while the pool is short of its target, else every 5 s. */
export function startAddressPoolFiller(ctx: Context): Loop {
  return startLoop({
    name: "address-pool-filler",
    log: ctx.log,
    intervalMs: 5_000,
    task: async () => (await fillAddressPool(ctx)).more,
  });
}

export function startPaymentLoops(ctx: Context): Loop[] {
  return [
    startAddressPoolFiller(ctx),
    startLoop({
      name: "order-expirer",
      log: ctx.log,
      intervalMs: 5_000,
      task: async () => (await expireOrders(ctx)).more,
    }),
    startLoop({
      name: "sweeper",
      log: ctx.log,
      intervalMs: 2_000,
      // Five settlements per claim: a slow node never holds many leases at once.
      task: async () => (await runDueSweeps(ctx, { limit: 5 })).claimed === 5,
    }),
    startLoop({
      name: "delegation-reconciler",
      log: ctx.log,
      intervalMs: 30_000,
      task: async () => {
        await reconcileDelegations(ctx);
      },
    }),
    startLoop({
      name: "address-releaser",
      log: ctx.log,
      intervalMs: 60_000,
      task: async () => (await releaseAddresses(ctx)).more,
    }),
  ];
}
