/**
 * The confirmer: finds transfers that are final and hands them to settleOrderTransfers.
 *
 * Final means both:
 *  - confirmations >= CONFIRMATIONS, where confirmations = scanned head - transfer block + 1 (the
 *    transfer's own block counts as the first; the scanned head is the cursor, i.e. the newest block
 *    whose ancestry the scanner has verified), and
 *  - the transfer's block is at or below the solidified head and in the solidified chain: the
 *    solidified chain's header of the highest such block (walletsolidity/getblock) has the hash the
 *    scanner recorded, and the scanner verified every parentHash link below it, so every scanned
 *    block under it (and the transfers read from them) is in the solidified chain.
 *
 * Node calls happen only when some transfer has its confirmations: one solidified header per run,
 * whatever the number of transfers, once they are predicted to be solidified (the lag of the
 * solidified head behind the scanned head is read with walletsolidity/getnowblock at the first need
 * and every 10 minutes).
 */
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { listConfirmableTransfers, settleOrderTransfers } from "../payments/confirm-transfers.js";
import { sql } from "drizzle-orm";
import { retryNode, type RetryTiming } from "./backoff.js";

export interface ConfirmResult {
  /** Transfers verified final this run. */
  confirmed: number;
  /** Orders that got an outcome. */
  outcomes: number;
  /** Transfers with enough confirmations still waiting for the solidified chain. */
  waiting: number;
}

/** What the confirmer knows of the solidified head between runs. */
export interface SolidState {
  /** Highest block known to be solidified. */
  number: number;
  /** How far the solidified head trails the scanned head; -1 until read once. */
  lag: number;
  /** Local time (ms) of the last walletsolidity/getnowblock. */
  readAt: number;
}

export function initialSolidState(): SolidState {
  return { number: -1, lag: -1, readAt: 0 };
}

/** The solidified head is re-read this often to keep the lag estimate true. */
const SOLID_HEAD_REFRESH_MS = 10 * 60_000;

export interface ConfirmInput {
  scannedHead: number;
  /** Updated in place. */
  solid: SolidState;
  signal: AbortSignal;
  retry?: RetryTiming | undefined;
}

export async function confirmTransfers(ctx: Context, input: ConfirmInput): Promise<ConfirmResult> {
  const result: ConfirmResult = { confirmed: 0, outcomes: 0, waiting: 0 };
  const candidates = await listConfirmableTransfers(ctx, input.scannedHead);
  if (candidates.length === 0) return result;
  const { signal, solid } = input;
  if (solid.lag < 0 || Date.now() - solid.readAt > SOLID_HEAD_REFRESH_MS) {
    const block = await retryNode(() => ctx.chain.client.getSolidifiedNowBlock(), {
      ...input.retry,
      signal,
      log: ctx.log,
      what: "solidified head",
    });
    const number = block.block_header.raw_data.number ?? 0;
    solid.number = Math.max(solid.number, number);
    solid.lag = Math.max(0, input.scannedHead - number);
    solid.readAt = Date.now();
  }
  // Between readings the solidified head is predicted from the lag; the solidified chain's own
  // header is the proof.
  const predicted = Math.max(solid.number, input.scannedHead - solid.lag);
  const lowest = Math.min(...candidates.map((c) => c.blockNumber));
  const top = Math.min(predicted, Math.max(...candidates.map((c) => c.blockNumber)));
  if (top < lowest) {
    result.waiting = candidates.length;
    return result;
  }
  const stored = await scannedHashes(ctx, [...new Set([top, ...candidates.map((c) => c.blockNumber)])]);
  const header = await retryNode(() => ctx.chain.headers.getBlockHeader(top, { solidified: true }), {
    ...input.retry,
    signal,
    log: ctx.log,
    what: `solidified block ${top}`,
  });
  if (!header) {
    // Not solidified yet: the prediction was early; read the solidified head next time.
    solid.readAt = 0;
    result.waiting = candidates.length;
    return result;
  }
  if (header.blockID.toLowerCase() !== stored.get(top)) {
    // The solidified chain disagrees with what was scanned: a fork the scanner has not met yet
    // (it rewinds at its next pass), or a lagging solidity node. Nothing is finalised from here.
    ctx.log.warn({ block: top }, "scanned block not in the solidified chain");
    solid.readAt = 0;
    result.waiting = candidates.length;
    return result;
  }
  solid.number = Math.max(solid.number, top);
  // The scanner verified every parentHash link from each candidate's block up to `top`, so the
  // solidified chain holds all of them; a transfer whose block hash is not the scanned one is stale.
  const verified = candidates.filter(
    (c) => c.blockNumber <= top && stored.get(c.blockNumber) === c.blockHash.toLowerCase(),
  );
  result.waiting = candidates.length - verified.length;

  const byOrder = new Map<string, string[]>();
  for (const t of verified) byOrder.set(t.orderId, [...(byOrder.get(t.orderId) ?? []), t.id]);
  for (const [orderId, ids] of byOrder) {
    const settled = await settleOrderTransfers(ctx, orderId, ids);
    result.confirmed += ids.length;
    if (settled.outcome) result.outcomes += 1;
  }
  return result;
}

/** The scanned hashes of these blocks (scanned_blocks). */
async function scannedHashes(ctx: Context, numbers: number[]): Promise<Map<number, string>> {
  const rows = await queryRows<{ n: string; hash: string }>(
    ctx.db,
    sql`SELECT block_number::text AS n, block_hash AS hash FROM scanned_blocks
        WHERE block_number = ANY(string_to_array(${numbers.join(",")}, ',')::bigint[])`,
  );
  return new Map(rows.map((r) => [Number(r.n), r.hash.toLowerCase()]));
}
