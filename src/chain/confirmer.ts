/**
 * The confirmer: finds transfers that are final and hands them to settleOrderTransfers.
 *
 * Final means both:
 *  - confirmations >= CONFIRMATIONS, where confirmations = scanned head - transfer block + 1 (the
 *    transfer's own block counts as the first; the scanned head is the cursor, i.e. the newest block
 *    whose ancestry the scanner has verified), and
 *  - the transfer's block is in the chain's final chain (chain.finalHead(): TRON's solidified head,
 *    EVM's `finalized` tag): the final head F is a scanned block with the hash the scanner recorded,
 *    and the scanner verified every parentHash link below it, so every scanned block at or below F
 *    (and the transfers read from them) is final. Final blocks stay final, so that proof holds for
 *    good: transfers at or below a proven block later need no node call at all.
 *
 * Node calls: one final-head reading at a time, whatever the number of transfers. One reading when
 * the process starts (to learn how far the final head trails), then one only when a transfer with
 * its confirmations sits above the proven block and is predicted to be final (from that lag as of
 * the last reading), at most once per scanned block: an outcome is recorded one call after its
 * block becomes final, and a gateway paid in every block pays one call per block for it. A caller
 * may space readings that prove something by `minMsBetweenProofs` (fewer calls, later outcomes);
 * the scanner does not by default.
 */
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { listConfirmableTransfers, settleOrdersTransfers } from "../payments/confirm-transfers.js";
import { confirmStrayTransfers, listConfirmableStrays } from "../strays/confirm-stray-transfers.js";
import { confirmDeposits, listConfirmableDeposits } from "../deposits/confirm-deposits.js";
import { sql } from "drizzle-orm";
import type { RetryTiming } from "../chains/backoff.js";
import type { Chain } from "../chains/chain.js";
import type { ChainId } from "../chains/chain-types.js";

export interface ConfirmResult {
  /** Transfers verified final this run. */
  confirmed: number;
  /** Orders that got an outcome, and deposits confirmed (each owes a webhook). */
  outcomes: number;
  /** Transfers with enough confirmations still waiting for the solidified chain. */
  waiting: number;
}

/** What the confirmer knows of the solidified chain between runs. */
export interface SolidState {
  /** Highest scanned block proven to be in the solidified chain; -1 until the first proof. */
  number: number;
  /** Its hash (lowercase hex). */
  hash: string;
  /** How far the solidified head trailed the scanned head at the last reading; -1 until read once. */
  lag: number;
  /** Scanned head at the last reading. */
  readAtHead: number;
  /** ctx.clock time (ms) of the last reading that proved a new block. */
  provedAt: number;
}

export function initialSolidState(): SolidState {
  return { number: -1, hash: "", lag: -1, readAtHead: -1, provedAt: 0 };
}

export interface ConfirmInput {
  chain: Chain;
  scannedHead: number;
  /** Updated in place. */
  solid: SolidState;
  signal: AbortSignal;
  retry?: RetryTiming | undefined;
  /** Milliseconds of ctx.clock between two readings that prove something; 0 (default) = read whenever due. */
  minMsBetweenProofs?: number;
}

export async function confirmTransfers(ctx: Context, input: ConfirmInput): Promise<ConfirmResult> {
  const result: ConfirmResult = { confirmed: 0, outcomes: 0, waiting: 0 };
  // Order transfers, stray transfers (orderId null) and deposits to static addresses are proven
  // final alike.
  const [payments, strays, depositCandidates] = await Promise.all([
    listConfirmableTransfers(ctx, input.scannedHead, 500, input.chain.id),
    listConfirmableStrays(ctx, input.scannedHead, 500, input.chain.id),
    listConfirmableDeposits(ctx, input.scannedHead, 500, input.chain.id),
  ]);
  const orderCandidates: { id: string; orderId: string | null; blockNumber: number; blockHash: string }[] = [
    ...payments,
    ...strays.map((s) => ({ ...s, orderId: null })),
  ];
  const candidates: { blockNumber: number; blockHash: string }[] = [...orderCandidates, ...depositCandidates];
  // The first run reads the solidified head whatever is due: once per process, it tells when
  // transfers will be solidified, so the first one due costs one reading, not a guess and a retry.
  const firstReading = input.solid.lag < 0;
  if (candidates.length === 0 && !firstReading) return result;
  const { signal, solid, scannedHead } = input;
  const blocks = new Set(candidates.map((c) => c.blockNumber));
  if (solid.number >= 0) blocks.add(solid.number);
  const stored = await scannedHashes(ctx, input.chain.id, [...blocks]);
  // A proof is only as good as the scanned chain it was made for (a rewind below it voids it).
  if (solid.number >= 0 && stored.get(solid.number) !== solid.hash) {
    solid.number = -1;
    solid.hash = "";
  }

  const unproven = candidates.filter((c) => c.blockNumber > solid.number);
  if (
    firstReading ||
    (unproven.length > 0 && readingDue(ctx, input, Math.min(...unproven.map((c) => c.blockNumber))))
  ) {
    const call = { signal, log: ctx.log, retry: input.retry };
    const head = await input.chain.finalHead(call);
    const number = head.number;
    solid.lag = Math.max(0, scannedHead - number);
    solid.readAtHead = scannedHead;
    let proof: { number: number; hash: string } | undefined;
    if (number <= scannedHead) {
      if (number > solid.number) {
        const at = (await scannedHashes(ctx, input.chain.id, [number])).get(number);
        if (at === head.hash) proof = { number, hash: at };
        // Not scanned (below where the scanner started): nothing to prove yet.
        else if (at !== undefined) mismatch(ctx, number);
      }
    } else if (unproven.length > 0) {
      // The scanner trails the solidified head: prove the highest candidate's block instead.
      const top = Math.max(...unproven.map((c) => c.blockNumber));
      const finalHash = await input.chain.finalBlockHash(top, call);
      const at = stored.get(top);
      if (finalHash !== undefined && at !== undefined && finalHash === at) proof = { number: top, hash: at };
      else mismatch(ctx, top);
    }
    if (proof) {
      solid.number = proof.number;
      solid.hash = proof.hash;
      solid.provedAt = ctx.clock.now().getTime();
      stored.set(proof.number, proof.hash);
    }
  }

  // The scanner verified every parentHash link from each candidate's block up to the proven block;
  // a transfer whose block hash is not the scanned one is stale (its fork is being rewound).
  const isVerified = (c: { blockNumber: number; blockHash: string }) =>
    c.blockNumber <= solid.number && stored.get(c.blockNumber) === c.blockHash.toLowerCase();
  const verified = orderCandidates.filter(isVerified);
  const verifiedDeposits = depositCandidates.filter(isVerified);
  result.waiting = candidates.length - verified.length - verifiedDeposits.length;
  if (verifiedDeposits.length > 0) {
    const confirmed = await confirmDeposits(
      ctx,
      verifiedDeposits.map((d) => d.id),
      scannedHead,
    );
    result.confirmed += confirmed;
    // A confirmed deposit owes a webhook as an order outcome does: the sender is woken for it.
    result.outcomes += confirmed;
  }

  const byOrder = new Map<string, string[]>();
  const finalStrays: string[] = [];
  for (const t of verified) {
    if (t.orderId === null) finalStrays.push(t.id);
    else byOrder.set(t.orderId, [...(byOrder.get(t.orderId) ?? []), t.id]);
  }
  result.confirmed += await confirmStrayTransfers(ctx, finalStrays);
  // One transaction with a fixed number of statements for all of them (a block of 300 payments
  // settled one order at a time took seconds).
  const settled = await settleOrdersTransfers(ctx, byOrder);
  for (const [orderId, ids] of byOrder) {
    result.confirmed += ids.length;
    if (settled.get(orderId)?.outcome) result.outcomes += 1;
  }
  return result;
}

/** Whether to read the solidified head for transfers from block `lowest` up. */
function readingDue(ctx: Context, input: ConfirmInput, lowest: number): boolean {
  const { solid, scannedHead } = input;
  // At most one reading per scanned block: the solidified head moves with the head.
  if (scannedHead <= solid.readAtHead) return false;
  if (scannedHead - solid.lag < lowest) return false;
  return ctx.clock.now().getTime() - solid.provedAt >= (input.minMsBetweenProofs ?? 0);
}

function mismatch(ctx: Context, block: number): void {
  // The solidified chain disagrees with what was scanned: a fork the scanner has not met yet (it
  // rewinds at its next pass), or a lagging solidity node. Nothing is finalised from it.
  ctx.log.warn({ block }, "scanned block not in the solidified chain");
}

/** The scanned hashes of these blocks of `chain` (scanned_blocks). */
async function scannedHashes(ctx: Context, chain: ChainId, numbers: number[]): Promise<Map<number, string>> {
  const rows = await queryRows<{ n: string; hash: string }>(
    ctx.db,
    sql`SELECT block_number::text AS n, block_hash AS hash FROM scanned_blocks
        WHERE chain = ${chain} AND block_number = ANY(string_to_array(${numbers.join(",")}, ',')::bigint[])`,
  );
  return new Map(rows.map((r) => [Number(r.n), r.hash.toLowerCase()]));
}
