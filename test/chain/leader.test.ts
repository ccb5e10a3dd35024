import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScannerLeader, type ScannerLeader } from "../../src/chain/scanner-leader.js";
import type { Context } from "../../src/context.js";
import type { Database, HeldLock } from "../../src/db/connection.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { devnetEnv, TEST_MNEMONIC, TEST_SECRETS } from "../helpers/config.js";
import { CONFIRMATIONS, FAST_RETRY, startChainTest, type ChainTest } from "./helpers.js";
import { poll } from "../helpers/poll.js";

const USDT = 1_000_000n;

let t: ChainTest;

beforeAll(async () => {
  t = await startChainTest();
});
afterAll(() => t.close());

/** A payment mined now is detected by whichever scanner leads. */
async function paymentIsDetected(timeoutMs: number): Promise<void> {
  const order = await t.order("1");
  await t.pay(order.address, 1n * USDT);
  t.mine();
  await poll("the payment to be detected", () => t.orderRow(order.id), {
    timeoutMs,
    intervalMs: 20,
    until: (row) => row.status === "detected",
  });
}

/** A database whose scanner lock can be "lost" on demand, as when its connection dies. */
function losableDatabase(database: Database): { database: Database; loseLock(): void } {
  let lose: (() => void) | undefined;
  return {
    database: {
      ...database,
      kind: database.kind,
      db: database.db,
      tryLock: async (key: number): Promise<HeldLock | null> => {
        const held = await database.tryLock(key);
        if (!held) return null;
        const lost = new Promise<void>((resolve) => (lose = resolve));
        return { release: () => held.release(), lost: Promise.race([held.lost, lost]) };
      },
    },
    loseLock: () => lose?.(),
  };
}

if (process.env.TEST_DATABASE_URL) {
  describe("scanner leadership across worker processes (PostgreSQL)", () => {
    const children: ChildProcess[] = [];
    afterAll(() => {
      for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    });

    function worker(): { child: ChildProcess; lines: string[] } {
      const lines: string[] = [];
      const child = spawn(
        process.execPath,
        ["--import", "tsx", join(import.meta.dirname, "fixtures/scanner-worker.ts")],
        {
          env: {
            ...process.env,
            NODE_ENV: "test",
            LOG_LEVEL: "silent",
            DATA_DIR: mkdtempSync(join(tmpdir(), "stablegate-worker-")),
            DATABASE_URL: t.testDb.url,
            ...TEST_SECRETS,
            WALLET_MNEMONIC: TEST_MNEMONIC,
            ...devnetEnv(t.devnet),
            CONFIRMATIONS: String(CONFIRMATIONS),
          },
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      let buffer = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        const parts = buffer.split("\n");
        buffer = parts.pop() ?? "";
        lines.push(...parts);
      });
      children.push(child);
      return { child, lines };
    }

    it("runs exactly one scanner among two processes and fails over within seconds of kill -9", async () => {
      const a = worker();
      await poll("A to lead", () => a.lines.some((l) => l.startsWith("LEADER")), {
        timeoutMs: 20_000,
        intervalMs: 20,
        describe: () => a.lines,
      });
      const b = worker();
      await poll("B to be ready", () => b.lines.some((l) => l.startsWith("READY")), {
        timeoutMs: 20_000,
        intervalMs: 20,
        describe: () => b.lines,
      });
      await paymentIsDetected(10_000);
      // B waited through several lock retries without ever leading.
      expect(b.lines.some((l) => l.startsWith("LEADER"))).toBe(false);

      a.child.kill("SIGKILL");
      const killedAt = Date.now();
      await poll("B to take over", () => b.lines.some((l) => l.startsWith("LEADER")), {
        timeoutMs: 10_000,
        intervalMs: 20,
        describe: () => b.lines,
      });
      const takeover = Date.now() - killedAt;
      expect(takeover).toBeLessThan(5_000);
      await paymentIsDetected(10_000);
      // A scanner process killed mid-work left the admin rollups equal to a recount.
      expect(await checkRollups(t.ctx.db)).toEqual([]);
    }, 60_000);
  });
}

describe("scanner leadership within one process", () => {
  let leaders: ScannerLeader[] = [];
  afterAll(async () => {
    await Promise.all(leaders.map((l) => l.stop()));
  });

  it("runs one scanner of two; the other takes over when the first releases or loses its lock", async () => {
    const first = losableDatabase(t.ctx.database);
    const ctxA: Context = { ...t.ctx, database: first.database };
    const options = { lockRetryMs: 100, maxIdleMs: 20, retry: FAST_RETRY };
    const a = startScannerLeader(ctxA, options);
    leaders.push(a);
    await poll("A to lead", () => a.isLeader(), { timeoutMs: 10_000, intervalMs: 20 });
    const b = startScannerLeader(t.ctx, options);
    leaders.push(b);
    await paymentIsDetected(10_000);
    expect(b.isLeader()).toBe(false);

    // The lock's connection "dies": A stops scanning at once and B takes over.
    first.loseLock();
    await poll("A to stop leading", () => !a.isLeader(), { timeoutMs: 10_000, intervalMs: 20 });
    await poll("B to lead", () => b.isLeader(), { timeoutMs: 10_000, intervalMs: 20 });
    await paymentIsDetected(10_000);
    await a.stop();
    leaders = leaders.filter((l) => l !== a);

    // A normal shutdown releases the lock: a third instance takes over from B.
    const c = startScannerLeader(t.ctx, options);
    leaders.push(c);
    await new Promise((r) => setTimeout(r, 300));
    expect(c.isLeader()).toBe(false);
    await b.stop();
    await poll("C to lead", () => c.isLeader(), { timeoutMs: 10_000, intervalMs: 20 });
    await paymentIsDetected(10_000);
    leaders = leaders.filter((l) => l !== b);
  }, 60_000);
});
