/**
 * Each chain's scanner position (a scanner_cursor row: TRON's is 'usdt', as before there were
 * chains; another chain's is `<family>:<id>`, e.g. `evm:ethereum`) and its record of recently
 * scanned blocks (scanned_blocks, keyed by chain and number: migration 0023), from which a fork
 * point is found. Every write here happens inside the transaction that also writes what the
 * scanned blocks contained. `chain` defaults to the primary chain everywhere.
 */
import { and, asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import { FAMILY_OF, type ChainId } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { scannedBlocks, scannerCursor } from "../db/schema.js";

export const USDT_CURSOR = "usdt";

/** Cursor rows that kept the name they had before there were chains. */
const FIRST_CURSORS: Partial<Record<ChainId, string>> = { tron: USDT_CURSOR };

/** The scanner_cursor row of `chain`. */
export function cursorName(chain: ChainId): string {
  return FIRST_CURSORS[chain] ?? `${FAMILY_OF[chain]}:${chain}`;
}

const primary = (ctx: Context): ChainId => ctx.chains.primary.id;

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

export async function readCursor(
  ctx: Context,
  db: Executor = ctx.db,
  chain: ChainId = primary(ctx),
): Promise<BlockRef | undefined> {
  const [row] = await db
    .select({ number: scannerCursor.blockNumber, hash: scannerCursor.blockHash })
    .from(scannerCursor)
    .where(eq(scannerCursor.name, cursorName(chain)));
  return row ? { number: Number(row.number), hash: row.hash } : undefined;
}

/**
 * Locks the cursor row and checks it is still where this scanner left it, so two scanners that
 * both believe they lead (a lock lost mid-transaction) can never both apply the same blocks.
 */
export async function lockCursor(
  ctx: Context,
  tx: Executor,
  expected: BlockRef,
  chain: ChainId = primary(ctx),
): Promise<void> {
  const [row] = await tx
    .select({ number: scannerCursor.blockNumber, hash: scannerCursor.blockHash })
    .from(scannerCursor)
    .where(eq(scannerCursor.name, cursorName(chain)))
    .for("update");
  const found = row ? { number: Number(row.number), hash: row.hash } : undefined;
  if (!found || found.number !== expected.number || found.hash !== expected.hash) {
    throw new CursorMovedError(expected, found);
  }
}

/** First start: the cursor and its block, unless another scanner got there first. */
export async function initCursor(
  ctx: Context,
  tx: Executor,
  block: ScannedBlock,
  chain: ChainId = primary(ctx),
): Promise<void> {
  const now = ctx.clock.now();
  await tx
    .insert(scannerCursor)
    .values({ name: cursorName(chain), blockNumber: block.number, blockHash: block.hash, updatedAt: now })
    .onConflictDoNothing();
  await recordScannedBlocks(ctx, tx, [block], chain);
}

export async function moveCursor(
  ctx: Context,
  tx: Executor,
  to: BlockRef,
  chain: ChainId = primary(ctx),
): Promise<void> {
  await tx
    .update(scannerCursor)
    .set({ blockNumber: to.number, blockHash: to.hash, updatedAt: ctx.clock.now() })
    .where(eq(scannerCursor.name, cursorName(chain)));
}

export async function recordScannedBlocks(
  ctx: Context,
  tx: Executor,
  blocks: ScannedBlock[],
  chain: ChainId = primary(ctx),
): Promise<void> {
  if (blocks.length === 0) return;
  const now = ctx.clock.now();
  await tx
    .insert(scannedBlocks)
    .values(
      blocks.map((b) => ({
        chain,
        blockNumber: b.number,
        blockHash: b.hash,
        parentHash: b.parentHash,
        scannedAt: now,
      })),
    )
    .onConflictDoUpdate({
      target: [scannedBlocks.chain, scannedBlocks.blockNumber],
      set: {
        blockHash: sql`excluded.block_hash`,
        parentHash: sql`excluded.parent_hash`,
        scannedAt: sql`excluded.scanned_at`,
      },
    });
}

export async function storedBlockHash(
  ctx: Context,
  number: number,
  chain: ChainId = primary(ctx),
): Promise<string | undefined> {
  const [row] = await ctx.db
    .select({ hash: scannedBlocks.blockHash })
    .from(scannedBlocks)
    .where(and(eq(scannedBlocks.chain, chain), eq(scannedBlocks.blockNumber, number)));
  return row?.hash;
}

/** The lowest and highest block numbers of the record, or undefined when it is empty. */
export async function scannedRange(
  ctx: Context,
  atMost: number,
  chain: ChainId = primary(ctx),
): Promise<{ low: number; high: number } | undefined> {
  const where = and(eq(scannedBlocks.chain, chain), lt(scannedBlocks.blockNumber, atMost + 1));
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
export async function forgetBlocksAbove(tx: Executor, number: number, chain: ChainId): Promise<void> {
  await tx
    .delete(scannedBlocks)
    .where(and(eq(scannedBlocks.chain, chain), gt(scannedBlocks.blockNumber, number)));
}

/**
 * Keeps the record small: blocks far below the solidified head can never be reorganised. The block
 * of an unconfirmed transfer is always kept: the confirmer checks its hash.
 */
export async function pruneScannedBlocks(tx: Executor, below: number, chain: ChainId): Promise<void> {
  await tx.execute(sql`
    DELETE FROM scanned_blocks
    WHERE chain = ${chain} AND block_number < ${below}
      AND block_number < coalesce(
        (SELECT min(block_number) FROM transfers WHERE status = 'seen' AND chain = ${chain}), ${below})`);
}
