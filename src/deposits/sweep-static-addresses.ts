/**
 * Sweep by balance (DESIGN.md 15): a static address is due for a sweep on a chain when the sum of
 * its confirmed deposits on that chain not yet swept reaches SWEEP_MIN_USDT, so small deposits add
 * up instead of each paying a sweep. One EVM address holds a separate balance on every EVM chain,
 * so it is due per (address, chain). Called in the transaction that confirms deposits; the sweep
 * itself is the address-level settlement (one row per address, a new round each time), which moves
 * exactly the deposits it marks (src/sweeps/sweepable-amount.ts).
 *
 * Settlements carry no chain yet: the sweeper moves the primary chain's token (TRON's), so only the
 * primary chain's due addresses are queued there. The other chains' due addresses are returned and
 * logged; their deposits stay unswept (settlement_id NULL), counted again at the address's next
 * confirmed deposit, until settlements name their chain (the EVM sweeper, migration 0031).
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

/**
 * Queues the sweeps these addresses are due for; returns the due ones left for a sweeper of
 * their own chain (see above).
 */
export async function queueStaticSweeps(
  ctx: Context,
  tx: Executor,
  depositAddressIds: readonly string[],
): Promise<StaticSweepDue[]> {
  if (!ctx.config.sweepEnabled || depositAddressIds.length === 0) return [];
  const due = await staticSweepsDue(ctx, tx, depositAddressIds);
  const primary = ctx.chains.primary.id;
  // One statement for all of them: a block can make hundreds of addresses due at once.
  await enqueueAddressSweeps(
    ctx,
    tx,
    due.filter((d) => d.chain === primary),
  );
  const waiting = due.filter((d) => d.chain !== primary);
  if (waiting.length > 0)
    ctx.log.info(
      { addresses: waiting.length, chains: [...new Set(waiting.map((d) => d.chain))] },
      "static addresses due for a sweep on a chain the sweeper does not serve yet",
    );
  return waiting;
}
