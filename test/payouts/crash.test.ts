/**
 * Never paid twice (DESIGN.md 14), proved by the chain's own USDT transfers out of the hot wallet:
 *
 * - a sender dies at each step of a send (after signing, after storing, after broadcasting, while
 *   waiting). On PostgreSQL (TEST_DATABASE_URL) it is a real worker process that SIGKILLs itself
 *   at the step; on PGlite an in-process send that stops dead at the step, its lease still held.
 *   Another worker takes the payout over once the lease has expired and finishes it.
 * - two real worker processes race over the same approved payouts (PostgreSQL); on PGlite two
 *   in-process senders with different owners interleave.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payouts, payoutTransactions } from "../../src/db/schema.js";
import { checkLedger } from "../../src/ledger/check-ledger.js";
import { createPayout } from "../../src/payouts/create-payout.js";
import { decidePayout } from "../../src/payouts/decide-payout.js";
import { claimDuePayouts } from "../../src/payouts/payout-store.js";
import {
  advancePayout,
  PAYOUT_LEASE_MS,
  payoutDeps,
  runDuePayouts,
  type SendStep,
} from "../../src/payouts/send-payouts.js";
import { evmHex } from "@stablegate/tron/address";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";
import { poll } from "../helpers/poll.js";

const SCRIPT = fileURLToPath(new URL("./payout-worker-process.ts", import.meta.url));
const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const USDT = 1_000_000n;
const STEPS: SendStep[] = ["signed", "stored", "broadcast", "waiting"];

let t: ChainTest;
let hot: { privateKey: string; address: string };
let merchantId: string;
let firstBlock = 0;
const children: ChildProcess[] = [];

async function newAccount() {
  const account = await TronWeb.createAccount();
  return { privateKey: account.privateKey, address: account.address.base58 as string };
}

beforeAll(async () => {
  hot = await newAccount();
  t = await startChainTest({ env: { HOT_WALLET_PRIVATE_KEY: hot.privateKey, SWEEP_ENABLED: "false" } });
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "10000", usdt: "100000", solidify: true });
  await t.scanner.sync();
  // The merchant's balance: a real payment, confirmed.
  merchantId = t.merchantId;
  const order = await t.order("10000");
  await t.pay(order.address, 10_000n * USDT);
  t.mine(1);
  await t.finalize();
  firstBlock = (await t.ctx.chain.client.getNowBlock()).block_header.raw_data.number ?? 0;
  // The workers use the real time; so does the survivor from here on.
  t.clock.set(new Date());
}, 120_000);
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await t?.close();
});

/** Every USDT Transfer the chain holds from the hot wallet to `to`, by reading each block's infos. */
async function transfersOut(to: string): Promise<number> {
  const head = (await t.ctx.chain.client.getNowBlock()).block_header.raw_data.number ?? 0;
  const from = evmHex(hot.address).padStart(64, "0");
  const dest = evmHex(to).padStart(64, "0");
  let n = 0;
  for (let block = firstBlock; block <= head; block++) {
    for (const info of await t.ctx.chain.client.getTransactionInfoByBlockNum(block)) {
      for (const log of info.log ?? []) {
        if (log.topics?.[0] === TRANSFER_TOPIC && log.topics[1] === from && log.topics[2] === dest) n++;
      }
    }
  }
  return n;
}

async function approvedPayout(to: string, amount: bigint, externalId: string): Promise<string> {
  const { payout } = await createPayout(
    t.ctx,
    merchantId,
    { kind: "merchant", id: merchantId, label: "sg_test_crash" },
    { external_id: externalId, amount: (amount / USDT).toString(), address: to },
  );
  await decidePayout(t.ctx, {
    id: payout.id,
    decision: "approve",
    actor: { kind: "operator", id: "op-2", label: "second" },
  });
  return payout.id;
}

async function rowOf(id: string) {
  const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
  if (!row) throw new Error(`payout ${id} not found`);
  return row;
}

/** A worker process; resolves when it printed "ready". */
function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: {
      ...process.env,
      DATABASE_URL: t.testDb.url ?? "",
      TRON_NODE_URL: t.devnet.url,
      USDT_CONTRACT: t.devnet.usdtContract,
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(child);
    });
    child.once("exit", (code, signal) => reject(new Error(`worker exited early: ${code ?? signal}`)));
  });
}

function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode ?? child.exitCode);
    else child.once("exit", (code, signal) => resolve(signal ?? code));
  });
}

/** The survivor: runs in-process after the dead worker's lease expired, until the payout ends. */
async function survive(id: string) {
  t.clock.set(new Date(Date.now() + 61_000)); // past the dead worker's lease
  for (let i = 0; i < 20; i++) {
    await runDuePayouts(t.ctx, { owner: "survivor" });
    const row = await rowOf(id);
    if (row.status === "completed" || row.status === "failed") return row;
    t.devnet.mine(SOLIDIFY_AFTER + 1);
    t.clock.advance(61_000);
  }
  return rowOf(id);
}

describe("a sender that dies at each step of a send", () => {
  for (const step of STEPS) {
    it(`pays once when it dies after ${step}`, { timeout: 180_000 }, async () => {
      const to = (await newAccount()).address;
      const id = await approvedPayout(to, 7n * USDT, `crash-${step}`);
      if (t.testDb.url) {
        const worker = await startWorker({ CRASH_AT: step, WORKER_ID: `crash-${step}` });
        await poll(
          `the worker to die after ${step}`,
          () => worker.exitCode !== null || worker.signalCode !== null,
          {
            timeoutMs: 120_000,
            between: () => t.devnet.mine(1),
            describe: () => rowOf(id),
          },
        );
        expect(await exited(worker)).toBe("SIGKILL");
      } else {
        const d = payoutDeps(t.ctx, `crash-${step}`);
        if (!d) throw new Error("no payout deps");
        const claimed = await claimDuePayouts(t.ctx, `crash-${step}`, 10, PAYOUT_LEASE_MS);
        expect(claimed).toContain(id);
        const dead = new Error("dead");
        await expect(
          advancePayout(d, id, {
            onStep: (s) => {
              if (s === step) throw dead;
            },
          }),
        ).rejects.toBe(dead);
      }
      const stored = await t.ctx.db
        .select()
        .from(payoutTransactions)
        .where(eq(payoutTransactions.payoutId, id));
      expect(stored.length).toBe(step === "signed" ? 0 : 1);
      const done = await survive(id);
      expect(done.status).toBe("completed");
      expect(await transfersOut(to)).toBe(1);
      const txs = await t.ctx.db.select().from(payoutTransactions).where(eq(payoutTransactions.payoutId, id));
      expect(txs.filter((tx) => tx.state === "solid")).toHaveLength(1);
      if (step !== "signed") expect(txs).toHaveLength(1); // the stored bytes were what landed
      expect(await checkLedger(t.ctx.db)).toEqual([]);
    });
  }
});

describe("two senders racing", () => {
  it("pay each approved payout exactly once", { timeout: 240_000 }, async () => {
    const recipients = await Promise.all(Array.from({ length: 6 }, () => newAccount()));
    const ids: string[] = [];
    for (const [i, r] of recipients.entries())
      ids.push(await approvedPayout(r.address, BigInt(i + 1) * USDT, `race-${i}`));
    const allDone = async () =>
      (await Promise.all(ids.map(rowOf))).every((row) => row.status === "completed");
    if (t.testDb.url) {
      await Promise.all([startWorker({ WORKER_ID: "racer-a" }), startWorker({ WORKER_ID: "racer-b" })]);
      await poll("every payout to complete", allDone, {
        timeoutMs: 120_000,
        between: () => t.devnet.mine(1),
        describe: () => Promise.all(ids.map(rowOf)),
      });
    } else {
      for (let round = 0; round < 20 && !(await allDone()); round++) {
        await Promise.all([
          runDuePayouts(t.ctx, { owner: "racer-a", limit: 3 }),
          runDuePayouts(t.ctx, { owner: "racer-b", limit: 3 }),
        ]);
        t.devnet.mine(SOLIDIFY_AFTER + 1);
        t.clock.advance(5_000);
      }
      expect(await allDone()).toBe(true);
    }
    for (const r of recipients) expect(await transfersOut(r.address)).toBe(1);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});
