/**
 * Sweep by balance (DESIGN.md 15): a static address is due for a sweep when the sum of its confirmed
 * deposits not yet swept reaches SWEEP_MIN_USDT, so small deposits add up instead of each paying a
 * sweep. Called in the transaction that confirms deposits; the sweep itself is the address-level
 * settlement (one row per address, a new round each time), which moves exactly the deposits it
 * marks (src/sweeps/sweepable-amount.ts).
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { enqueueAddressSweeps } from "../sweeps/enqueue-sweep.js";

export async function queueStaticSweeps(
  ctx: Context,
  tx: Executor,
  depositAddressIds: readonly string[],
): Promise<void> {
  if (!ctx.config.sweepEnabled || depositAddressIds.length === 0) return;
  const due = await queryRows<{ address_id: string; address: string }>(
    tx,
    sql`SELECT da.address_id::text AS address_id, da.address
        FROM deposit_addresses da JOIN deposits d ON d.deposit_address_id = da.id
        WHERE da.id = ANY(string_to_array(${[...depositAddressIds].sort().join(",")}, ',')::uuid[])
          AND d.status = 'confirmed' AND d.settlement_id IS NULL
        GROUP BY da.address_id, da.address
        HAVING sum(d.amount) >= ${ctx.config.sweepMinUsdt.toString()}::numeric
        ORDER BY da.address_id`,
  );
  // One statement for all of them: a block can make hundreds of addresses due at once.
  await enqueueAddressSweeps(
    ctx,
    tx,
    due.map((row) => ({ addressId: Number(row.address_id), address: row.address })),
  );
}
