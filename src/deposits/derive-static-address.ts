/**
 * Derives the next static deposit address (m/44'/195'/0'/1/i, DESIGN.md 15) inside the caller's
 * transaction. The static branch has its own counter (static_index_counter), apart from the order
 * branch's pool filler and inline derivation, which read derivation_index only: the branches never
 * share an index. The counter row is locked until the caller's transaction ends, so concurrent
 * creations (any number of api and worker processes) take consecutive indexes, and a creation that
 * rolls back hands its index to the next one: every index is used once, none is skipped.
 * The API tier holds only WALLET_XPUB: deriving an address needs no private key.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";

export interface StaticAddress {
  addressId: number;
  address: string;
  staticIndex: number;
}

export async function deriveStaticAddress(ctx: Context, tx: Executor): Promise<StaticAddress> {
  const [counter] = await queryRows<{ next_index: number }>(
    tx,
    sql`UPDATE static_index_counter SET next_index = next_index + 1 RETURNING next_index - 1 AS next_index`,
  );
  if (!counter) throw new Error("static_index_counter has no row (migration 0012 not applied)");
  const staticIndex = Number(counter.next_index);
  const address = ctx.chains.primary.derivation.deriveAddress(ctx.config.walletXpub, staticIndex, 1);
  const [row] = await queryRows<{ id: string }>(
    tx,
    sql`INSERT INTO addresses (static_index, address, status, created_at)
        VALUES (${staticIndex}, ${address}, 'static', ${ctx.clock.now().toISOString()}::timestamptz)
        RETURNING id::text AS id`,
  );
  return { addressId: Number(row?.id), address, staticIndex };
}
