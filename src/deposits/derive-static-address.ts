/**
 * Derives the next static deposit address of a chain family inside the caller's transaction
 * (DESIGN.md 15 and 16: TRON m/44'/195'/0'/1/i, EVM m/44'/60'/0'/1/i). Each family's static branch
 * has its own counter (static_index_counter, one row per family since migration 0032), apart from
 * the order branch's pool filler and inline derivation, which read derivation_index only: the
 * branches never share an index. The counter row is locked until the caller's transaction ends, so
 * concurrent creations (any number of api and worker processes) take consecutive indexes, and a
 * creation that rolls back hands its index to the next one: every index is used once, none is
 * skipped. The API tier holds only the family's account-level xpub: deriving needs no private key.
 */
import { sql } from "drizzle-orm";
import type { ChainFamilyName } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { addressPool } from "../wallet/address-pools.js";

export interface StaticAddress {
  addressId: number;
  /** Stored form (TRON base58; EVM lowercase 0x hex). */
  address: string;
  staticIndex: number;
}

export async function deriveStaticAddress(
  ctx: Context,
  tx: Executor,
  family: ChainFamilyName = ctx.chains.primary.family,
): Promise<StaticAddress> {
  const pool = addressPool(ctx, family);
  const [counter] = await queryRows<{ next_index: number }>(
    tx,
    sql`INSERT INTO static_index_counter (family, next_index) VALUES (${family}, 1)
        ON CONFLICT (family) DO UPDATE SET next_index = static_index_counter.next_index + 1
        RETURNING next_index - 1 AS next_index`,
  );
  if (!counter) throw new Error("static_index_counter: no row returned");
  const staticIndex = Number(counter.next_index);
  const address = pool.derivation.deriveAddress(pool.xpub, staticIndex, 1);
  const [row] = await queryRows<{ id: string }>(
    tx,
    sql`INSERT INTO addresses (family, static_index, address, status, created_at)
        VALUES (${family}, ${staticIndex}, ${address}, 'static', ${ctx.clock.now().toISOString()}::timestamptz)
        RETURNING id::text AS id`,
  );
  return { addressId: Number(row?.id), address, staticIndex };
}
