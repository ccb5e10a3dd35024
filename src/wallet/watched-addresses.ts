/**
 * The addresses the chain scanner must watch: every address bound to an order. An allocated
 * address keeps order_id = its last order through quarantine, so a transfer to it is always
 * credited to that order; a released address (status free, order_id NULL) is no longer watched.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";

export interface WatchedAddress {
  address: string;
  addressId: number;
  /** The order a transfer to this address is credited to. */
  orderId: string;
}

export async function watchedAddresses(ctx: Context, db: Executor = ctx.db): Promise<WatchedAddress[]> {
  const now = ctx.clock.now().toISOString();
  const result = await queryRows<{ address: string; id: string; order_id: string }>(
    db,
    sql`
    SELECT address, id::text AS id, order_id::text AS order_id
    FROM addresses
    WHERE order_id IS NOT NULL
      AND (status = 'allocated' OR quarantine_until > ${now}::timestamptz)
    ORDER BY derivation_index`,
  );
  return result.map((row) => ({ address: row.address, addressId: Number(row.id), orderId: row.order_id }));
}
