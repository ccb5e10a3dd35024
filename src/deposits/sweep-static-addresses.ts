/**
 * Sweep by balance (DESIGN.md 15): a static address is due for a sweep on a chain when the sum of
 * its confirmed deposits on that chain not yet swept reaches SWEEP_MIN_USDT, so small deposits add
 * up instead of each paying a sweep. One EVM address holds a separate balance on every EVM chain,
 * so it is due per (address, chain). Called in the transaction that confirms deposits; the sweep
 * itself is the address-level settlement (one row per address, a new round each time), which moves
 * exactly the deposits it marks (src/sweeps/sweepable-amount.ts on TRON, src/sweeps/evm-sweeps.ts on
 * an EVM chain). Every due (address, chain) pair is queued on its own chain (settlements name their
 * chain since migration 0031), so one EVM address paid on two chains is swept on each of them.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { enqueueAddressSweeps } from "../sweeps/enqueue-sweep.js";

export interface StaticSweepDue {
  addressId: number;
  address: string;
  chain: string;
}

/** The (address, chain) pairs among these static addresses whose unswept balance reaches the minimum. */
export async function staticSweepsDue(
  ctx: Context,
  tx: Executor,
  depositAddressIds: readonly string[],
): Promise<StaticSweepDue[]> {
  if (depositAddressIds.length === 0) return [];
  const due = await queryRows<{ address_id: string; address: string; chain: string }>(
    tx,
    sql`SELECT da.address_id::text AS address_id, da.address, d.chain
        FROM deposit_addresses da JOIN deposits d ON d.deposit_address_id = da.id
        WHERE da.id = ANY(string_to_array(${[...depositAddressIds].sort().join(",")}, ',')::uuid[])
          AND d.status = 'confirmed' AND d.settlement_id IS NULL
        GROUP BY da.address_id, da.address, d.chain
        HAVING sum(d.amount) >= ${ctx.config.sweepMinUsdt.toString()}::numeric
        ORDER BY da.address_id, d.chain`,
  );
  return due.map((row) => ({ addressId: Number(row.address_id), address: row.address, chain: row.chain }));
}

/** Queues the sweeps these addresses are due for, each on its own chain; returns them. */
export async function queueStaticSweeps(
  ctx: Context,
  tx: Executor,
  depositAddressIds: readonly string[],
): Promise<StaticSweepDue[]> {
  if (!ctx.config.sweepEnabled || depositAddressIds.length === 0) return [];
  const due = await staticSweepsDue(ctx, tx, depositAddressIds);
  // One statement for all of them: a block can make hundreds of addresses due at once.
  await enqueueAddressSweeps(ctx, tx, due);
  return due;
}
