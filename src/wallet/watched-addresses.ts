/**
 * The addresses the chain scanner watches: every address the service ever derived (DESIGN.md 4).
 * An address bound to an order (allocated, through quarantine) credits a transfer to that order;
 * any other (free in the pool, or held by an unswept stray balance) records it as a stray transfer
 * (src/payments/address-holders.ts decides, in the scanner's transaction).
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";

export interface WatchedAddress {
  address: string;
  addressId: number;
  /** The order a transfer to this address is credited to; null: it would be a stray transfer. */
  orderId: string | null;
}

export async function watchedAddresses(ctx: Context, db: Executor = ctx.db): Promise<WatchedAddress[]> {
  const result = await queryRows<{ address: string; id: string; order_id: string | null }>(
    db,
    sql`SELECT address, id::text AS id, order_id::text AS order_id FROM addresses ORDER BY id`,
  );
  return result.map((row) => ({ address: row.address, addressId: Number(row.id), orderId: row.order_id }));
}
