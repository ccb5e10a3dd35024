/**
 * The scanner's position (scanner_cursor 'usdt') and its record of recently scanned blocks
 * (scanned_blocks), from which a fork point is found. Every write here happens inside the
 * transaction that also writes what the scanned blocks contained.
 */
import { asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { scannedBlocks, scannerCursor } from "../db/schema.js";

export const USDT_CURSOR = "usdt";

export interface BlockRef {
  number: number;
  /** blockID, lowercase hex */
  hash: string;
}

export interface ScannedBlock extends BlockRef {
  parentHash: string;
}

/** Another scanner moved the cursor since this one read it: this scanner's work is void. */
export class CursorMovedError extends Error {
  constructor(expected: BlockRef, found: BlockRef | undefined) {
    super(
      `scanner cursor moved: expected ${expected.number}/${expected.hash.slice(0, 16)}, found ` +
        (found ? `${found.number}/${found.hash.slice(0, 16)}` : "none"),
    );
    this.name = "CursorMovedError";
  }
}

export async function readCursor(ctx: Context, db: Executor = ctx.db): Promise<BlockRef | undefined> {
  const [row] = await db
    .select({ number: scannerCursor.blockNumber, hash: scannerCursor.blockHash })
    .from(scannerCursor)
    .where(eq(scannerCursor.name, USDT_CURSOR));
  return row ? { number: Number(row.number), hash: row.hash } : undefined;
}

/**
 * Locks the cursor row and checks it is still where this scanner left it, so two scanners that
 * both believe they lead (a lock lost mid-transaction) can never both apply the same blocks.
 */
export async function lockCursor(ctx: Context, tx: Executor, expected: BlockRef): Promise<void> {
  const [row] = await tx
    .select({ number: scannerCursor.blockNumber, hash: scannerCursor.blockHash })
    .from(scannerCursor)
    .where(eq(scannerCursor.name, USDT_CURSOR))
    .for("update");
  const found = row ? { number: Number(row.number), hash: row.hash } : undefined;
  if (!found || found.number !== expected.number || found.hash !== expected.hash) {
    throw new CursorMovedError(expected, found);
  }
}

/** First start: the cursor and its block, unless another scanner got there first. */
export async function initCursor(ctx: Context, tx: Executor, block: ScannedBlock): Promise<void> {
  const now = ctx.clock.now();
  await tx
    .insert(scannerCursor)
    .values({ name: USDT_CURSOR, blockNumber: block.number, blockHash: block.hash, updatedAt: now })
    .onConflictDoNothing();
  await recordScannedBlocks(ctx, tx, [block]);
}

export async function moveCursor(ctx: Context, tx: Executor, to: BlockRef): Promise<void> {
  await tx
    .update(scannerCursor)
    .set({ blockNumber: to.number, blockHash: to.hash, updatedAt: ctx.clock.now() })
    .where(eq(scannerCursor.name, USDT_CURSOR));
}

export async function recordScannedBlocks(ctx: Context, tx: Executor, blocks: ScannedBlock[]): Promise<void> {
  if (blocks.length === 0) return;
  const now = ctx.clock.now();
  await tx
    .insert(scannedBlocks)
    .values(
      blocks.map((b) => ({
        blockNumber: b.number,
        blockHash: b.hash,
        parentHash: b.parentHash,
        scannedAt: now,
      })),
    )
    .onConflictDoUpdate({
      target: scannedBlocks.blockNumber,
      set: {
        blockHash: sql`excluded.block_hash`,
        parentHash: sql`excluded.parent_hash`,
        scannedAt: sql`excluded.scanned_at`,
      },
    });
}

export async function storedBlockHash(ctx: Context, number: number): Promise<string | undefined> {
  const [row] = await ctx.db
    .select({ hash: scannedBlocks.blockHash })
    .from(scannedBlocks)
    .where(eq(scannedBlocks.blockNumber, number));
  return row?.hash;
}

/** The lowest and highest block numbers of the record, or undefined when it is empty. */
export async function scannedRange(
  ctx: Context,
  atMost: number,
): Promise<{ low: number; high: number } | undefined> {
  const where = lt(scannedBlocks.blockNumber, atMost + 1);
  const [low] = await ctx.db
    .select({ n: scannedBlocks.blockNumber })
    .from(scannedBlocks)
    .where(where)
    .orderBy(asc(scannedBlocks.blockNumber))
    .limit(1);
  const [high] = await ctx.db
    .select({ n: scannedBlocks.blockNumber })
    .from(scannedBlocks)
    .where(where)
    .orderBy(desc(scannedBlocks.blockNumber))
    .limit(1);
  return low && high ? { low: Number(low.n), high: Number(high.n) } : undefined;
}

/** Drops the record above the fork point (those blocks are no longer on the chain). */
export async function forgetBlocksAbove(tx: Executor, number: number): Promise<void> {
  await tx.delete(scannedBlocks).where(gt(scannedBlocks.blockNumber, number));
}

/**
 * Keeps the record small: blocks far below the solidified head can never be reorganised. The block
 * of an unconfirmed transfer is always kept: the confirmer checks its hash.
 */
export async function pruneScannedBlocks(tx: Executor, below: number): Promise<void> {
  await tx.execute(sql`
    DELETE FROM scanned_blocks
    WHERE block_number < ${below}
      AND block_number < coalesce((SELECT min(block_number) FROM transfers WHERE status = 'seen'), ${below})`);
}
