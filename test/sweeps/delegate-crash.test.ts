/**
 * A delegate-mode sweep survives its worker dying at every step: no energy stays delegated and
 * nothing is paid twice. The worker dies right after it stored a signed transaction:
 *
 * - on PostgreSQL (TEST_DATABASE_URL), a real worker process (test/sweeps/sweeper-process.ts) is
 *   killed with SIGKILL once its settlement reached the step (its transaction stored and, most
 *   often, broadcast): the chain does not move while it runs, so it cannot get further;
 * - on either engine, an in-process worker whose database and node connections vanish the moment
 *   the transaction is stored, before any broadcast: the stored bytes alone must be enough.
 *
 * Then another worker takes over once the lease has expired and finishes the settlement. Stray
 * transfers are in the mix (DESIGN.md 4): USDT paid to a pool address no order holds is recorded,
 * and its address's own settlement survives the same deaths; each sweep is proved once by the
 * chain's own USDT transfers to the cold wallet, and check-rollups stays clean.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "../../src/context.js";
import type { NodePool } from "../../src/chain/node-pool.js";
import { strayTransfers, sweepCosts } from "../../src/db/schema.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { chainTransfers, type ChainTest } from "../chain/helpers.js";
import {
  delegatedEnergyStake,
  ledgerOf,
  paidOrder,
  settlementOf,
  stake,
  startWalletChainTest,
  trxBalance,
} from "./delegate-helpers.js";
import { addressSettlement, spareAddress } from "../strays/helpers.js";
import { usdtBalance } from "../helpers/usdt.js";
import { poll } from "../helpers/poll.js";

const SCRIPT = fileURLToPath(new URL("./sweeper-process.ts", import.meta.url));
const STEPS = ["activate_sent", "delegate_sent", "sweep_sent", "undelegate_sent"] as const;
type Step = (typeof STEPS)[number];

let t: ChainTest;
let hot: { privateKey: string; address: string };
let cold: { address: string };
let swept = 0n;
let fromBlock = 0;
let sweepsToCold = 0;

/** What a crash case sweeps: an order's address, or a stray transfer's (its own settlement). */
interface Target {
  address: string;
  settlement(): ReturnType<typeof settlementOf>;
}

const orderTarget = (order: { id: string; address: string }): Target => ({
  address: order.address,
  settlement: () => settlementOf(t, order.id),
});

/** USDT paid to a free pool address no order ever held: a stray, recorded and confirmed. */
async function strayTarget(micro: bigint): Promise<Target> {
  const address = await spareAddress(t);
  const txid = await t.pay(address, micro);
  t.mine(1);
  await t.finalize();
  const recorded = await t.ctx.db.select().from(strayTransfers).where(eq(strayTransfers.toAddress, address));
  expect(recorded).toEqual([expect.objectContaining({ txHash: txid, amount: micro, status: "confirmed" })]);
  return {
    address,
    settlement: () => addressSettlement(t, address),
  };
}

/** Mines a block, moves the clock past any wait and runs the sweeper until the settlement ends. */
async function sweepUntilSettled(target: Target, rounds = 30) {
  for (let i = 0; i < rounds; i++) {
    t.devnet.mine(1);
    t.clock.advance(61_000);
    await runDueSweeps(t.ctx);
    const row = await target.settlement();
    if (row?.status === "completed" || row?.status === "failed") return row;
  }
  return target.settlement();
}

beforeAll(async () => {
  ({ t, hot, cold } = await startWalletChainTest({ SWEEP_ENABLED: "true", SWEEP_MODE: "delegate" }));
  // Energy for sixteen delegated sweeps (orders and strays): a delegation's energy used by the
  // address comes back to the hot wallet as its own usage, which recovers only over a day.
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "500000", solidify: true });
  await stake(t, hot.privateKey, 400_000, "ENERGY");
  await stake(t, hot.privateKey, 20_000, "BANDWIDTH");
  await t.scanner.sync();
  fromBlock = (await t.cursor()) ?? 0;
  // The workers use the real time; so does the survivor from here on.
  t.clock.set(new Date());
});
afterAll(async () => {
  await t.close();
});

/** A real worker process, killed with SIGKILL once the settlement is at `step`. */
async function killProcessAt(target: Target, step: Step): Promise<void> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: {
      ...process.env,
      DATABASE_URL: t.testDb.url,
      TRON_NODE_URL: t.devnet.url,
      USDT_CONTRACT: t.devnet.usdtContract,
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: cold.address,
      WORKER_ID: `doomed-${step}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<string>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? String(code))),
  );
  try {
    // The chain moves only while the worker has not reached the step yet.
    await poll(`the settlement to reach ${step}`, () => target.settlement(), {
      timeoutMs: 30_000,
      intervalMs: 150,
      until: (row) => row?.step === step,
      between: () => t.devnet.mine(1),
    });
  } finally {
    child.kill("SIGKILL");
  }
  expect(await exited).toBe("SIGKILL");
}

/**
 * An in-process worker whose database and node vanish the moment its settlement is stored at
 * `step`: the signed transaction is in the database, and it was never broadcast.
 */
async function dieInProcessAt(subject: Target, step: Step): Promise<void> {
  let dead = false;
  const gone = () => new Error("connection terminated: worker process is gone");
  const db = new Proxy(t.ctx.db, {
    get(target, property, receiver) {
      if (dead) throw gone();
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      if (property !== "execute" && property !== "transaction") return value.bind(target);
      return async (...args: unknown[]) => {
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if ((await subject.settlement())?.step === step) dead = true;
        return result;
      };
    },
  });
  const client = new Proxy(t.ctx.chain.client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (dead) throw gone();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as NodePool;
  const doomed: Context = { ...t.ctx, db, chain: { ...t.ctx.chain, client } };
  for (let i = 0; i < 40 && !dead; i++) {
    await runDueSweeps(doomed, { owner: `doomed-inprocess-${step}` }).catch(() => undefined);
    if (!dead) {
      t.devnet.mine(1);
      t.clock.advance(61_000);
    }
  }
  expect(dead).toBe(true);
  expect((await subject.settlement())?.step).toBe(step);
}

/** The lease of the dead worker runs out: the survivor's clock moves past it. */
async function outliveLease(target: Target): Promise<void> {
  const row = await target.settlement();
  const until = Math.max(row?.leaseExpiresAt?.getTime() ?? 0, row?.nextAttemptAt?.getTime() ?? 0);
  t.clock.set(new Date(Math.max(until, Date.now()) + 1_000));
}

async function expectSweptOnce(target: Target, amount: bigint, hotBefore: bigint) {
  const { address } = target;
  const settled = await sweepUntilSettled(target);
  expect(settled).toMatchObject({ status: "completed", step: "swept" });
  swept += amount;
  expect(await usdtBalance(t.devnet, cold.address)).toBe(swept);
  expect(await usdtBalance(t.devnet, address)).toBe(0n);
  // No energy left delegated to the address, and the hot wallet paid the activation once.
  expect(await delegatedEnergyStake(t, hot.address, address)).toBe(0n);
  const ledger = await ledgerOf(t, settled!.id);
  const landed = ledger.filter((r) => r.state === "solid" || r.state === "failed");
  expect(landed.map((r) => r.kind).sort()).toEqual(["activate", "delegate", "sweep", "undelegate"]);
  const burnt = hotBefore - (await trxBalance(t, hot.address)) - (await trxBalance(t, address));
  const [cost] = await t.ctx.db.select().from(sweepCosts).where(eq(sweepCosts.settlementId, settled!.id));
  expect(cost?.trxBurnt).toBe(burnt);
  expect(cost?.activationTrx).toBe(burnt);
  expect(burnt).toBeLessThanOrEqual(1_100_000n);
  // The chain itself shows the one USDT transfer from the address to the cold wallet.
  const head = Number((await t.ctx.chain.client.getNowBlock()).block_header.raw_data.number);
  const toCold = await chainTransfers(t, new Set([cold.address]), fromBlock, head);
  expect(toCold).toHaveLength(++sweepsToCold);
  expect(await checkRollups(t.ctx.db)).toEqual([]);
}

describe("a delegate-mode worker dying right after storing a transaction", () => {
  for (const step of STEPS) {
    it(`finishes without stranding energy or paying twice: died at ${step}, before broadcasting`, async () => {
      t.clock.set(new Date());
      const order = orderTarget(await paidOrder(t, "6", 6_000_000n));
      const hotBefore = await trxBalance(t, hot.address);
      await dieInProcessAt(order, step);
      await outliveLease(order);
      await expectSweptOnce(order, 6_000_000n, hotBefore);
    }, 60_000);
  }
  for (const step of STEPS) {
    it(`sweeps a stray transfer's address once: died at ${step}, before broadcasting`, async () => {
      t.clock.set(new Date());
      const stray = await strayTarget(4_000_000n);
      const hotBefore = await trxBalance(t, hot.address);
      await dieInProcessAt(stray, step);
      await outliveLease(stray);
      await expectSweptOnce(stray, 4_000_000n, hotBefore);
    }, 60_000);
  }
});

// Real processes need a database they can share: PostgreSQL only (PGlite lives inside one process).
if (process.env.TEST_DATABASE_URL) {
  describe("a delegate-mode worker process killed with SIGKILL", () => {
    for (const step of STEPS) {
      it(`finishes without stranding energy or paying twice: killed at ${step}`, async () => {
        t.clock.set(new Date());
        const order = orderTarget(await paidOrder(t, "8", 8_000_000n));
        const hotBefore = await trxBalance(t, hot.address);
        await killProcessAt(order, step);
        await outliveLease(order);
        await expectSweptOnce(order, 8_000_000n, hotBefore);
      }, 120_000);
    }
    for (const step of STEPS) {
      it(`sweeps a stray transfer's address once: killed at ${step}`, async () => {
        t.clock.set(new Date());
        const stray = await strayTarget(3_000_000n);
        const hotBefore = await trxBalance(t, hot.address);
        await killProcessAt(stray, step);
        await outliveLease(stray);
        await expectSweptOnce(stray, 3_000_000n, hotBefore);
      }, 120_000);
    }
  });
}
