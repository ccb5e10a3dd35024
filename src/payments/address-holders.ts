/**
 * Who a USDT transfer to one of our addresses belongs to (DESIGN.md 4): the scanner watches every
 * address the service ever derived, and each transfer is dispatched by the address's holder.
 *  - an order holds it (allocated, through quarantine): the order's payment (apply-transfers.ts)
 *    when the transfer is on the order's chain in its currency, else a stray on the transfer's
 *    chain (an EVM address is one key on every EVM chain: a payment on the wrong one is not the
 *    order's);
 *  - nobody holds it (free in the pool, or released): a stray transfer (src/strays/).
 *  - a static deposit address (DESIGN.md 15, status 'static'): a deposit, credited by creditDeposits
 *    (the scanner calls it beside applyTransfers).
 *
 * Runs inside the scanner's transaction. The addresses are locked (FOR SHARE) until it commits, so
 * the holder read here is the holder the transfer is credited to: an order creation claiming a
 * free address, or a release freeing one, skips a locked row (both use SKIP LOCKED) rather than
 * change the holder under the transfer.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";

export type AddressHolder =
  | { kind: "order"; addressId: number; orderId: string; chain: string; currency: string }
  /** a static deposit address (DESIGN.md 15): its transfers are deposits (src/deposits/credit-deposits.ts) */
  | { kind: "deposit"; addressId: number }
  | {
      kind: "stray";
      addressId: number;
      /** the order the address last belonged to, if any */
      previousOrderId: string | null;
      /** the address is in the free pool now (a stray takes it out) */
      free: boolean;
    };

interface AddressRow extends Record<string, unknown> {
  id: string;
  address: string;
  status: string;
  order_id: string | null;
  last_order_id: string | null;
  order_chain: string | null;
  order_currency: string | null;
}

function holderOf(row: AddressRow): AddressHolder {
  const addressId = Number(row.id);
  if (row.order_id !== null)
    return {
      kind: "order",
      addressId,
      orderId: row.order_id,
      chain: row.order_chain ?? "",
      currency: row.order_currency ?? "",
    };
  if (row.status === "static") return { kind: "deposit", addressId };
  return { kind: "stray", addressId, previousOrderId: row.last_order_id, free: row.status === "free" };
}

/** Recipient address -> its holder, for every recipient that is one of our addresses. */
export async function addressHolders(
  tx: Executor,
  recipients: readonly string[],
): Promise<Map<string, AddressHolder>> {
  const unique = [...new Set(recipients)];
  const out = new Map<string, AddressHolder>();
  if (unique.length === 0) return out;
  // One array parameter (base58 never contains a comma), not thousands of IN-list parameters.
  const rows = await queryRows<AddressRow>(
    tx,
    sql`SELECT a.id::text AS id, a.address, a.status, a.order_id::text AS order_id,
          a.last_order_id::text AS last_order_id, o.chain AS order_chain, o.currency AS order_currency
        FROM addresses a LEFT JOIN orders o ON o.id = a.order_id
        WHERE a.address = ANY(string_to_array(${unique.join(",")}, ','))
        ORDER BY a.id
        FOR SHARE OF a`,
  );
  for (const row of rows) out.set(row.address, holderOf(row));
  return out;
}

/** The orders among `holders`: recipient -> order id (the shape creditTransfers takes). */
export function orderHolders(holders: ReadonlyMap<string, AddressHolder>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [address, holder] of holders) if (holder.kind === "order") out.set(address, holder.orderId);
  return out;
}
