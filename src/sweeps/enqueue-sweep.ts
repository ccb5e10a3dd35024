/**
 * Queues the sweep of an order's deposit address, inside the transaction that sets its outcome
 * (DESIGN.md 7: sweeping follows the confirmed outcome, independent of webhook delivery). A later
 * payment to an already swept address queues it again; a sweep in progress or failed is left alone
 * (the sweeper moves the whole balance, and a failed one waits for an operator's retry-sweep).
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { pgArray } from "../db/pg-array.js";
import { newId } from "../ids.js";

/** An address-level sweep: the address, and the chain whose balance is swept (default tron). */
export interface SweepTarget {
  addressId: number;
  address: string;
  chain?: string;
}

/** The cold wallet a settlement on `chain` is recorded with (the sweeper reads the config again). */
function coldWallet(ctx: Context, chain: string): string | null {
  // An EVM chain's own (<CHAIN>_COLD_WALLET_ADDRESS, else EVM_COLD_WALLET_ADDRESS); TRON's otherwise.
  const evm = ctx.config.evmChains.find((c) => c.id === chain);
  if (!evm) return ctx.config.coldWalletAddress ?? null;
  return (evm.coldWalletAddress ?? ctx.config.evmWallet.coldWalletAddress)?.toLowerCase() ?? null;
}

export async function enqueueSweep(
  ctx: Context,
  tx: Executor,
  order: { id: string; address: string; chain?: string },
): Promise<void> {
  await enqueueSweeps(ctx, tx, [order]);
}

/** The same for many orders in one statement (a block's payments settled together). */
export async function enqueueSweeps(
  ctx: Context,
  tx: Executor,
  targets: readonly { id: string; address: string; chain?: string }[],
): Promise<void> {
  if (!ctx.config.sweepEnabled || targets.length === 0) return;
  const now = ctx.clock.now().toISOString();
  // In order id order, so two transactions queueing overlapping sets lock their rows alike; each
  // order once (ON CONFLICT may not touch a row twice in one statement).
  const sorted = [...new Map(targets.map((t) => [t.id, t])).values()].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const chains = sorted.map((t) => t.chain ?? "tron");
  await tx.execute(sql`
    INSERT INTO settlements (id, order_id, address_id, address, status, cold_wallet_address, next_attempt_at,
      queued_at, created_at, updated_at, chain)
    SELECT t.id, t.order_id, (SELECT a.id FROM addresses a WHERE a.address = t.address), t.address, 'waiting',
      t.cold_wallet, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz, t.chain
    FROM unnest(${pgArray(sorted.map(() => newId()))}::uuid[],
                ${pgArray(sorted.map((t) => t.id))}::uuid[],
                ${pgArray(sorted.map((t) => t.address))}::text[],
                ${pgArray(chains.map((chain) => coldWallet(ctx, chain)))}::text[],
                ${pgArray(chains)}::text[])
      WITH ORDINALITY AS t (id, order_id, address, cold_wallet, chain, n)
    ORDER BY t.n
    ON CONFLICT (order_id) DO UPDATE
    SET status = 'waiting', step = NULL, attempts = 0, last_error = NULL, mode = NULL,
      round = settlements.round + 1, queued_at = EXCLUDED.queued_at,
      next_attempt_at = EXCLUDED.next_attempt_at, lease_owner = NULL, lease_expires_at = NULL,
      updated_at = EXCLUDED.updated_at
    WHERE settlements.status = 'completed'`);
}

/**
 * Queues the sweep of an address's own balance (a settlement with no order: a stray transfer's,
 * DESIGN.md 4; static deposit addresses, DESIGN.md 15, build on it). One address-level settlement row
 * per address; a completed one starts another round, one in progress or failed is left alone as
 * for orders.
 */
export async function enqueueAddressSweeps(
  ctx: Context,
  tx: Executor,
  targets: readonly SweepTarget[],
): Promise<void> {
  if (!ctx.config.sweepEnabled || targets.length === 0) return;
  const now = ctx.clock.now().toISOString();
  // In address_id order, so two transactions queueing overlapping sets lock their rows alike.
  // Each address once (ON CONFLICT may not touch a row twice in one statement).
  const chainOf = (t: SweepTarget) => t.chain ?? "tron";
  const sorted = [...new Map(targets.map((t) => [`${t.addressId}:${chainOf(t)}`, t])).values()].sort(
    (a, b) => a.addressId - b.addressId || chainOf(a).localeCompare(chainOf(b)),
  );
  await tx.execute(sql`
    INSERT INTO settlements (id, order_id, address_id, address, status, cold_wallet_address,
      next_attempt_at, queued_at, created_at, updated_at, chain)
    SELECT t.id, NULL, t.address_id, t.address, 'waiting', NULLIF(t.cold, ''),
      ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz, t.chain
    FROM unnest(string_to_array(${sorted.map(() => newId()).join(",")}, ',')::uuid[],
                string_to_array(${sorted.map((t) => t.addressId).join(",")}, ',')::bigint[],
                string_to_array(${sorted.map((t) => t.address).join(",")}, ',')::text[],
                string_to_array(${sorted.map(chainOf).join(",")}, ',')::text[],
                string_to_array(${sorted.map((t) => coldWallet(ctx, chainOf(t)) ?? "").join(",")}, ',')::text[])
      WITH ORDINALITY AS t (id, address_id, address, chain, cold, n)
    ORDER BY t.n
    ON CONFLICT (address_id, chain) WHERE order_id IS NULL DO UPDATE
    SET status = 'waiting', step = NULL, attempts = 0, last_error = NULL, mode = NULL,
      round = settlements.round + 1, queued_at = EXCLUDED.queued_at,
      next_attempt_at = EXCLUDED.next_attempt_at, lease_owner = NULL, lease_expires_at = NULL,
      updated_at = EXCLUDED.updated_at
    WHERE settlements.status = 'completed'`);
}
