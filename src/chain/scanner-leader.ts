/**
 * Exactly one active scanner per enabled chain among any number of worker processes: each worker
 * runs one leader per chain (startScannerLeaders), which tries that chain's scanner advisory lock
 * every ~1.5 s; the holder runs the chain's scanner and confirmer. Chains lead independently: one
 * worker may scan TRON while another scans Ethereum. On PostgreSQL the lock
 * is session-level, so it is freed the moment the holder's connection dies (process killed) and
 * another worker takes over within one retry. If the holder's lock connection is lost, its scanner
 * stops at once; even a transaction still in flight cannot double-apply blocks, because every
 * batch re-checks the cursor it started from (see scanner.ts). While it leads, the holder also
 * publishes its chain's node pool view every few seconds (chain-status.ts) for the dashboard and the
 * alert evaluators of other processes. When the database goes away (restart, crash, network), the
 * lock connection dies with it: the scanner stops, the dead connection is discarded, and the lock
 * is tried again every ~1.5 s until the database is back, when one worker takes it again.
 */
import type { Context } from "../context.js";
import { isDatabaseUnavailable } from "../db/database-error.js";
import { LOCK_KEYS } from "../db/locks.js";
import type { Chain } from "../chains/chain.js";
import { CHAIN_IDS, type ChainId } from "../chains/chain-types.js";
import type { Loop } from "../workers/loop.js";
import { sleep } from "../chains/backoff.js";
import { CHAIN_STATUS_PUBLISH_MS, publishChainStatus } from "./chain-status.js";
import { createScanner, type Scanner, type ScannerOptions } from "./scanner.js";

export interface ScannerLeaderOptions extends ScannerOptions {
  /** Pause between two attempts to take the lock. */
  lockRetryMs?: number;
}

export interface ScannerLeader extends Loop {
  /** true while this process holds the lock and scans. */
  isLeader(): boolean;
  readonly scanner: Scanner;
}

/**
 * The advisory lock of `chain`'s scanner: TRON keeps the key the single scanner always had, so a
 * worker of an older version and a new one never both lead it; each other chain has the next keys.
 */
export function scannerLockKey(chain: ChainId): number {
  return LOCK_KEYS.scanner + CHAIN_IDS.indexOf(chain) * 1_000;
}

/** One leader per enabled chain, each with `options` (the chain set per leader). */
export function startScannerLeaders(ctx: Context, options: ScannerLeaderOptions = {}): ScannerLeader[] {
  return ctx.chains.list.map((chain) => startScannerLeader(ctx, { ...options, chain }));
}

export function startScannerLeader(ctx: Context, options: ScannerLeaderOptions = {}): ScannerLeader {
  const lockRetryMs = options.lockRetryMs ?? 1500;
  const stopping = new AbortController();
  const chain: Chain = options.chain ?? ctx.chains.primary;
  const scanner = createScanner({ ...ctx, log: ctx.log.child({ chain: chain.id }) }, { ...options, chain });
  const lockKey = scannerLockKey(chain.id);
  const log = ctx.log.child({ chain: chain.id });
  let leader = false;

  const lead = async () => {
    // Failed attempts in a row: while the database is down, logged once and then every 20th time.
    let attemptFailures = 0;
    while (!stopping.signal.aborted) {
      let lock;
      try {
        lock = await ctx.database.tryLock(lockKey);
        if (attemptFailures > 0) {
          log.info({ failures: attemptFailures }, "scanner lock attempts resumed");
        }
        attemptFailures = 0;
      } catch (error) {
        attemptFailures += 1;
        if (!isDatabaseUnavailable(error) || attemptFailures === 1 || attemptFailures % 20 === 0) {
          log.warn({ err: error, failures: attemptFailures }, "scanner lock attempt failed");
        }
      }
      if (!lock) {
        await sleep(lockRetryMs * (0.75 + Math.random() * 0.5), stopping.signal);
        continue;
      }
      const term = new AbortController();
      const end = () => term.abort();
      stopping.signal.addEventListener("abort", end, { once: true });
      let lost = false;
      void lock.lost.then(() => {
        lost = true;
        term.abort();
      });
      leader = true;
      log.info({ pid: process.pid }, "scanner leadership acquired");
      let publishing: Promise<void> | undefined;
      const publisher = setInterval(() => {
        publishing ??= publishChainStatus(ctx, chain)
          .catch((error: unknown) => log.warn({ err: error }, "chain status not published"))
          .finally(() => (publishing = undefined));
      }, CHAIN_STATUS_PUBLISH_MS);
      try {
        await scanner.run(term.signal);
      } catch (error) {
        log.error({ err: error }, "scanner stopped unexpectedly");
      } finally {
        clearInterval(publisher);
        await publishing;
        leader = false;
        stopping.signal.removeEventListener("abort", end);
        if (lost) log.warn("scanner leadership lost (lock connection closed)");
        await lock
          .release()
          .catch((error: unknown) => log.warn({ err: error }, "scanner lock release failed"));
      }
      // A worker that lost its lock steps back for a while, so a healthy one takes over first.
      if (!stopping.signal.aborted) await sleep(lost ? 3 * lockRetryMs : lockRetryMs, stopping.signal);
    }
  };
  const done = lead();

  return {
    // The primary chain's leader keeps the name the single scanner had.
    name: chain === ctx.chains.primary ? "chain-scanner" : `chain-scanner:${chain.id}`,
    scanner,
    isLeader: () => leader,
    // The scanner polls on its own schedule; there is nothing to wake.
    wake: () => undefined,
    async stop() {
      stopping.abort();
      await done;
    },
  };
}
