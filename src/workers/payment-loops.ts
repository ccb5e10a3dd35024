/**
 * The order-side background loops: keep the deposit address pool filled, expire unpaid orders,
 * sweep paid addresses to the cold wallet and return addresses to the pool after quarantine. Each calls one idempotent domain function.
 */
import type { Context } from "../context.js";
import { expireOrders } from "../payments/expire-orders.js";
import {
  fillAddressPools,
  POOL_FILLER_INTERVAL_MS,
  setPoolFillerWake,
  vacuumFreeAddressesIfDue,
} from "../wallet/fill-address-pool.js";
import { reconcileDelegations } from "../sweeps/reconcile-delegations.js";
import { runDueSweeps } from "../sweeps/run-sweeps.js";
import { evmSweepDeps, runDueEvmSweeps } from "../sweeps/evm-sweeps.js";
import { releaseAddresses } from "../wallet/release-addresses.js";
import { eq } from "drizzle-orm";
import { isDatabaseUnavailable } from "../db/database-error.js";
import { settlements } from "../db/schema.js";
import { startLoop, type Loop } from "./loop.js";

/**
 * The pool filler: runs back to back while the pool is short of its target, else every
 * `intervalMs` (POOL_FILLER_INTERVAL_MS), and at once when a creation of this process finds the
 * pool empty (wakePoolFiller).
 */
export function startAddressPoolFiller(ctx: Context, options: { intervalMs?: number } = {}): Loop {
  const loop = startLoop({
    name: "address-pool-filler",
    log: ctx.log,
    intervalMs: options.intervalMs ?? POOL_FILLER_INTERVAL_MS,
    task: async () => {
      const { more } = await fillAddressPools(ctx);
      await vacuumFreeAddressesIfDue(ctx);
      return more;
    },
  });
  setPoolFillerWake(ctx, loop.wake);
  return {
    name: loop.name,
    wake: loop.wake,
    async stop() {
      setPoolFillerWake(ctx, null);
      await loop.stop();
    },
  };
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
    startSweeperLoop(ctx),
    ...startEvmSweeperLoops(ctx),
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

/**
 * One EVM sweeper per EVM chain this process can sweep (EVM_HOT_WALLET_PRIVATE_KEY, a cold wallet,
 * WALLET_MNEMONIC, SWEEP_ENABLED): docs/evm-sweeps.md. Its transactions travel through the chain's
 * outbox loop (outbox-loops.ts), which any worker with the hot wallet's key runs.
 */
function startEvmSweeperLoops(ctx: Context): Loop[] {
  const owner = `evm-sweeper-${process.pid}`;
  return ctx.chains.list
    .filter((chain) => evmSweepDeps(ctx, chain.id, owner) !== null)
    .map((chain) =>
      startLoop({
        name: `sweeper-${chain.id}`,
        log: ctx.log,
        intervalMs: 2_000,
        task: async () => (await runDueEvmSweeps(ctx, chain.id, { limit: 5, owner })).claimed === 5,
      }),
    );
}

/**
 * The sweeper under one lease owner per process. A database outage in the middle of a step leaves
 * that settlement leased to this process (SWEEP_LEASE_MS, minutes) although nothing works on it any
 * more: once the database is back, and before its next claim, the loop hands its own leases back,
 * exactly as their expiry would, so the sweep resumes within seconds instead of minutes.
 */
function startSweeperLoop(ctx: Context): Loop {
  const owner = `sweeper-${process.pid}`;
  let abandoned = false;
  return startLoop({
    name: "sweeper",
    log: ctx.log,
    intervalMs: 2_000,
    task: async () => {
      try {
        if (abandoned) {
          const released = await ctx.db
            .update(settlements)
            .set({ leaseOwner: null, leaseExpiresAt: null })
            .where(eq(settlements.leaseOwner, owner))
            .returning({ id: settlements.id });
          abandoned = false;
          if (released.length > 0) {
            ctx.log.info({ settlements: released.length }, "sweep leases released after a database outage");
          }
        }
        // Five settlements per claim: a slow node never holds many leases at once.
        return (await runDueSweeps(ctx, { limit: 5, owner })).claimed === 5;
      } catch (error) {
        if (isDatabaseUnavailable(error)) abandoned = true;
        throw error;
      }
    },
  });
}
