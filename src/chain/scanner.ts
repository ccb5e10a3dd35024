/**
 * The scanner (DESIGN.md section 5). It walks every block in order from the persisted cursor,
 * reading the head and the blocks' watched-token transfers through the chain boundary
 * (src/chains/chain.ts: TRON reads each block's header and transaction infos, EVM reads log
 * ranges). Each block's parentHash must equal the hash of the block before it; a mismatch at the
 * cursor is a fork, and the cursor is rewound to the fork point (transfers above it dropped, orders
 * reverted). Transfers, scanned_blocks rows and the cursor advance commit in one transaction per
 * batch, guarded by a compare-and-set on the cursor, so a restart (or a second scanner that wrongly believes it leads) can neither skip nor repeat a block.
 *
 * Only one scanner should run at a time (see scanner-leader.ts); this module assumes nothing about
 * leadership beyond the cursor check.
 */
import type { Context } from "../context.js";
import { AbortedError, backoffMs, sleep, type RetryTiming } from "../chains/backoff.js";
import { InconsistentBlockError, type Chain, type ChainHead, type ReadBlock } from "../chains/chain.js";
import { unitsToMicro } from "../chains/token-units.js";
import { addressHolders } from "../payments/address-holders.js";
import { applyTransfers, type ChainTransfer } from "../payments/apply-transfers.js";
import { revertTransfersAbove } from "../payments/revert-fork.js";
import { creditDeposits, staticHoldersByAddress } from "../deposits/credit-deposits.js";
import { revertDepositsAbove } from "../deposits/revert-deposits.js";
import { BlockTiming } from "./block-timing.js";
import { confirmTransfers, initialSolidState, type ConfirmResult } from "./confirmer.js";
import {
  forgetBlocksAbove,
  initCursor,
  lockCursor,
  moveCursor,
  pruneScannedBlocks,
  readCursor,
  recordScannedBlocks,
  storedBlockHash,
  type BlockRef,
} from "./cursor.js";
import { findForkPoint } from "./find-fork-point.js";

export interface ScannerOptions {
  /** The chain to scan (default: the primary chain, ctx.chains.primary). */
  chain?: Chain;
  /** Node calls in flight while catching up. */
  concurrency?: number;
  /** Blocks per database transaction. */
  batchSize?: number;
  /** Blocks per scan pass; the head is re-read and the confirmer runs between passes. */
  maxBlocksPerPass?: number;
  /** Longest wait between two head polls. */
  maxIdleMs?: number;
  /** Shortest wait between two head polls. */
  minIdleMs?: number;
  /** Called after an outcome commits (wakes the webhook sender). */
  onOutcome?: () => void;
  /** Backoff of failed node calls (default 200 ms doubling to 10 s, with jitter). */
  retry?: RetryTiming;
  /**
   * Milliseconds between two solidified-head readings that finalise something (default 0: read
   * whenever a transfer is due, at most once per scanned block). The confirmer reads only when a
   * transfer with its confirmations is predicted to have entered the solidified chain, so an
   * outcome follows its block's solidification by one head poll and one call, and the scanner's
   * calls stay at or under three per block (head, transaction infos, solidified head): 3,600 an
   * hour with 3 s blocks, however many orders are open or paid.
   */
  minMsBetweenProofs?: number;
}

export interface ScanResult {
  head: number;
  cursor: number;
  /** The cursor reached the head this pass. */
  caughtUp: boolean;
  /** The head moved since the previous pass. */
  newHead: boolean;
  blocks: number;
  credited: number;
  /** Set when the pass found a fork (or a reset chain) and rewound the cursor. */
  rewoundTo?: number;
  /** Milliseconds spent waiting for the node and applying to the database this pass. */
  fetchWaitMs?: number;
  applyMs?: number;
}

export interface Scanner {
  /** One pass: read the head, scan up to maxBlocksPerPass blocks, or rewind after a fork. */
  scanOnce(signal?: AbortSignal): Promise<ScanResult>;
  /** Finalises transfers that reached CONFIRMATIONS and the solidified chain. */
  confirmOnce(signal?: AbortSignal): Promise<ConfirmResult>;
  /** Passes until caught up, then one confirmer run (for tests and tools). */
  sync(signal?: AbortSignal): Promise<ScanResult>;
  /** Scans and confirms until the signal aborts, polling the head as blocks come. */
  run(signal: AbortSignal): Promise<void>;
}

/** Blocks kept in scanned_blocks below the lower of (solidified head, cursor - confirmations). */
export const SCANNED_BLOCKS_MARGIN = 200;

const NEVER = new AbortController().signal;

export function createScanner(ctx: Context, options: ScannerOptions = {}): Scanner {
  const concurrency = options.concurrency ?? 12;
  const batchSize = options.batchSize ?? 50;
  const maxBlocksPerPass = options.maxBlocksPerPass ?? 400;
  const timing = new BlockTiming({
    maxIdleMs: options.maxIdleMs ?? 3000,
    minIdleMs: options.minIdleMs ?? 20,
  });
  const chain = options.chain ?? ctx.chains.primary;
  const solid = initialSolidState();
  let lastHead = -1;
  let sincePrune = 0;

  async function scanOnce(signal: AbortSignal = NEVER): Promise<ScanResult> {
    const result = await scanPass(signal);
    ctx.metrics.scannerHeadBlock.set({ chain: chain.id }, result.head);
    ctx.metrics.scannerScannedBlock.set({ chain: chain.id }, result.cursor);
    ctx.metrics.scannerLagBlocks.set({ chain: chain.id }, Math.max(0, result.head - result.cursor));
    return result;
  }

  async function scanPass(signal: AbortSignal): Promise<ScanResult> {
    if (chain.currencies.length === 0) throw new Error(`${chain.id}: no token contract is configured`);
    // When the pass reaches the head, the chain reads the head block as it gave it (same node).
    const head = await chain.head({ signal, log: ctx.log, retry: options.retry });
    chain.observeHead(head.number);
    const newHead = timing.observe(head) || head.number !== lastHead;
    lastHead = head.number;

    const cursor = await readCursor(ctx, ctx.db, chain.id);
    const base = { head: head.number, newHead, blocks: 0, credited: 0 };
    if (!cursor) {
      // First start: scan from the current head on (the head block itself included).
      const start: BlockRef =
        head.number > 0 ? { number: head.number - 1, hash: head.parentHash } : { number: 0, hash: head.hash };
      await ctx.db.transaction((tx) => initCursor(ctx, tx, { ...start, parentHash: "" }, chain.id));
      ctx.log.info({ chain: chain.id, block: start.number + 1 }, "scanner starts at the current head");
      return { ...base, cursor: start.number, caughtUp: false };
    }

    if (head.number <= cursor.number) {
      const same =
        head.number === cursor.number
          ? head.hash === cursor.hash
          : (await storedBlockHash(ctx, head.number, chain.id)) === head.hash;
      // Equal, or the node is behind us on the same chain (a lagging backend): nothing to do.
      if (same) {
        if (!newHead) timing.miss();
        return { ...base, cursor: cursor.number, caughtUp: true };
      }
      return rewind(cursor, head.number, head, signal, base);
    }

    const from = cursor.number + 1;
    const to = Math.min(head.number, cursor.number + maxBlocksPerPass);
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal.addEventListener("abort", abort, { once: true });
    try {
      const blocks = chain.readBlocks(from, to, {
        log: ctx.log,
        signal: controller.signal,
        concurrency,
        retry: options.retry,
        head: to === head.number ? head : undefined,
      });
      let at: BlockRef = cursor;
      let batch: ReadBlock[] = [];
      let scanned = 0;
      let credited = 0;
      let fetchWaitMs = 0;
      let applyMs = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const started = performance.now();
        credited += await applyBatch(at, batch);
        applyMs += performance.now() - started;
        const last = batch[batch.length - 1] as ReadBlock;
        at = { number: last.header.number, hash: last.header.hash };
        scanned += batch.length;
        batch = [];
      };
      for (let i = 0; i < blocks.length; i++) {
        let block: ReadBlock;
        const waitStarted = performance.now();
        try {
          block = await (blocks[i] as Promise<ReadBlock>);
          fetchWaitMs += performance.now() - waitStarted;
        } catch (error) {
          // Keep what is linked and final so far; the next pass starts from it.
          await flush();
          throw error;
        }
        const previous = batch.length > 0 ? (batch[batch.length - 1] as ReadBlock).header : at;
        if (block.header.parentHash !== previous.hash) {
          await flush();
          // Nothing linked to the cursor: the chain forked below it.
          if (at.number === cursor.number) return rewind(cursor, cursor.number, head, signal, base);
          // The node reorganised while we fetched: the next pass meets the fork at its cursor.
          return { ...base, cursor: at.number, caughtUp: false, blocks: scanned, credited };
        }
        batch.push(block);
        if (batch.length >= batchSize) await flush();
      }
      await flush();
      ctx.log.debug({ from, to: at.number, credited, fetchWaitMs, applyMs }, "scanner pass");
      return {
        ...base,
        cursor: at.number,
        caughtUp: at.number >= head.number,
        blocks: scanned,
        credited,
        fetchWaitMs,
        applyMs,
      };
    } finally {
      controller.abort();
      signal.removeEventListener("abort", abort);
    }
  }

  /** One transaction: the batch's transfers, its scanned_blocks rows and the cursor. */
  async function applyBatch(expected: BlockRef, batch: ReadBlock[]): Promise<number> {
    const candidates = batch.flatMap((b) => b.transfers);
    const last = (batch[batch.length - 1] as ReadBlock).header;
    sincePrune += batch.length;
    const prune = sincePrune >= 100;
    const credited = await ctx.db.transaction(async (tx) => {
      await lockCursor(ctx, tx, expected, chain.id);
      let count = 0;
      if (candidates.length > 0) {
        const recipients = candidates.map((c) => c.to);
        // Every derived address, by holder (payments/address-holders.ts); static deposit addresses
        // are credited by creditDeposits below.
        const owners = await addressHolders(tx, recipients);
        const statics = await staticHoldersByAddress(tx, recipients);
        const matched: ChainTransfer[] = [];
        for (const t of candidates) {
          const to = t.to;
          if (!owners.has(to) && !statics.has(to)) continue;
          // Orders count micro-units; a sub-micro remainder (18-decimal tokens) is not credited.
          const { micro, remainder } = unitsToMicro(t.units, t.decimals);
          if (micro === 0n) {
            // Less than one micro-unit in all (dust of an 18-decimal token, as address-poisoning
            // sends): nothing to credit, so no payment, stray or deposit (docs/chains.md).
            ctx.log.info(
              { chain: chain.id, txHash: t.txHash, logIndex: t.logIndex, to, units: t.units.toString() },
              "transfer below one micro-unit: not credited",
            );
            continue;
          }
          matched.push({
            txHash: t.txHash,
            logIndex: t.logIndex,
            blockNumber: t.blockNumber,
            blockHash: t.blockHash,
            blockTimestamp: new Date(t.blockTimestamp),
            from: t.from,
            to,
            amount: micro,
            chain: chain.id,
            currency: t.currency,
            remainder,
            decimals: t.decimals,
          });
        }
        count = (await applyTransfers(ctx, tx, matched, owners)).credited;
        if (statics.size > 0) count += await creditDeposits(ctx, tx, matched, statics, last.number);
      }
      await recordScannedBlocks(
        ctx,
        tx,
        batch.map((b) => ({ number: b.header.number, hash: b.header.hash, parentHash: b.header.parentHash })),
        chain.id,
      );
      await moveCursor(ctx, tx, { number: last.number, hash: last.hash }, chain.id);
      if (prune) {
        const keepFrom = Math.min(
          solid.number >= 0 ? solid.number : last.number,
          last.number - ctx.config.confirmations,
        );
        await pruneScannedBlocks(tx, keepFrom - SCANNED_BLOCKS_MARGIN, chain.id);
      }
      return count;
    });
    if (prune) sincePrune = 0;
    return credited;
  }

  /**
   * The chain no longer holds the cursor's block: rewind to the fork point, or, when no recorded
   * block is on the chain any more (a reset devnet, another network), start again at the head.
   */
  async function rewind(
    cursor: BlockRef,
    highest: number,
    head: ChainHead,
    signal: AbortSignal,
    base: Omit<ScanResult, "cursor" | "caughtUp">,
  ): Promise<ScanResult> {
    const forkPoint = await findForkPoint(
      ctx,
      chain,
      Math.min(highest, cursor.number),
      signal,
      options.retry,
    );
    const target: BlockRef = forkPoint ?? {
      number: Math.max(0, head.number - 1),
      hash: head.number > 0 ? head.parentHash : head.hash,
    };
    const reverted = await ctx.db.transaction(async (tx) => {
      await lockCursor(ctx, tx, cursor, chain.id);
      const result = await revertTransfersAbove(ctx, tx, forkPoint ? forkPoint.number : -1, chain.id);
      result.dropped += await revertDepositsAbove(ctx, tx, forkPoint ? forkPoint.number : -1, chain.id);
      if (forkPoint) {
        await forgetBlocksAbove(tx, forkPoint.number, chain.id);
      } else {
        await forgetBlocksAbove(tx, -1, chain.id);
        await recordScannedBlocks(ctx, tx, [{ ...target, parentHash: "" }], chain.id);
      }
      await moveCursor(ctx, tx, target, chain.id);
      return result;
    });
    if (forkPoint) {
      ctx.log.warn(
        {
          chain: chain.id,
          from: cursor.number,
          to: target.number,
          dropped: reverted.dropped,
          reverted: reverted.reverted.length,
        },
        "chain reorganisation: scanner rewound to the fork point",
      );
    } else {
      ctx.log.error(
        { chain: chain.id, from: cursor.number, head: head.number, dropped: reverted.dropped },
        "scanned blocks are not on the node's chain (reset chain or another network): re-syncing from the head",
      );
    }
    return { ...base, cursor: target.number, caughtUp: false, rewoundTo: target.number };
  }

  async function confirm(signal: AbortSignal, minMsBetweenProofs: number): Promise<ConfirmResult> {
    const cursor = await readCursor(ctx, ctx.db, chain.id);
    if (!cursor) return { confirmed: 0, outcomes: 0, waiting: 0 };
    const result = await confirmTransfers(ctx, {
      chain,
      scannedHead: cursor.number,
      solid,
      signal,
      retry: options.retry,
      minMsBetweenProofs,
    });
    if (result.outcomes > 0) options.onOutcome?.();
    return result;
  }

  const confirmOnce = (signal: AbortSignal = NEVER) => confirm(signal, 0);

  async function sync(signal: AbortSignal = NEVER): Promise<ScanResult> {
    let result: ScanResult;
    do {
      result = await scanOnce(signal);
    } while (!result.caughtUp && !signal.aborted);
    await confirmOnce(signal);
    return result;
  }

  async function run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      let wait: number;
      try {
        const result = await scanOnce(signal);
        await confirm(signal, options.minMsBetweenProofs ?? 0);
        failures = 0;
        // Wall clock, not ctx.clock: the delay is a real timer's, reckoned from the block
        // timestamps the chain stamped on its own clock.
        wait = result.caughtUp ? timing.nextPollDelay(Date.now()) : 0;
      } catch (error) {
        if (signal.aborted || error instanceof AbortedError) break;
        failures += 1;
        wait = error instanceof InconsistentBlockError ? 0 : backoffMs(failures, 250, 15_000);
        const level = error instanceof InconsistentBlockError || failures < 3 ? "warn" : "error";
        ctx.log[level]({ err: error, failures, waitMs: Math.round(wait) }, "scanner pass failed");
      }
      if (wait > 0) await sleep(wait, signal);
    }
  }

  return { scanOnce, confirmOnce, sync, run };
}
