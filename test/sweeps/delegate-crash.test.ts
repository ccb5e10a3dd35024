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
 * Then another worker takes over once the lease has expired and finishes the settlement.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "../../src/context.js";
import type { NodePool } from "../../src/chain/node-pool.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import {
  costsOf,
  delegatedEnergyStake,
  ledgerOf,
  newAccount,
  paidOrder,
  settlementOf,
  stake,
  sweepUntilSettled,
  trxBalance,
  usdtBalance,
} from "./delegate-helpers.js";

const SCRIPT = fileURLToPath(new URL("./sweeper-process.ts", import.meta.url));
const STEPS = ["activate_sent", "delegate_sent", "sweep_sent", "undelegate_sent"] as const;
type Step = (typeof STEPS)[number];

let t: ChainTest;
let hot: { privateKey: string; address: string };
let cold: { address: string };
let swept = 0n;

beforeAll(async () => {
  hot = await newAccount();
  cold = await newAccount();
  t = await startChainTest({
    env: {
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: cold.address,
      SWEEP_ENABLED: "true",
      SWEEP_MODE: "delegate",
    },
  });
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "200000", solidify: true });
  await stake(t, hot.privateKey, 100_000, "ENERGY");
  await stake(t, hot.privateKey, 20_000, "BANDWIDTH");
  await t.scanner.sync();
  // The workers use the real time; so does the survivor from here on.
  t.clock.set(new Date());
});
afterAll(async () => {
  await t.close();
});

async function waitForStep(orderId: string, step: Step, mine: boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const row = await settlementOf(t, orderId);
    if (row?.step === step) return;
    if (Date.now() > deadline) throw new Error(`settlement stayed at ${row?.step ?? "nothing"}`);
    // The chain moves only while the worker has not reached the step yet.
    if (mine) t.devnet.mine(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** A real worker process, killed with SIGKILL once the settlement is at `step`. */
async function killProcessAt(orderId: string, step: Step): Promise<void> {
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
    await waitForStep(orderId, step, true);
  } finally {
    child.kill("SIGKILL");
  }
  expect(await exited).toBe("SIGKILL");
}

/**
 * An in-process worker whose database and node vanish the moment its settlement is stored at
 * `step`: the signed transaction is in the database, and it was never broadcast.
 */
async function dieInProcessAt(orderId: string, step: Step): Promise<void> {
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
        if ((await settlementOf(t, orderId))?.step === step) dead = true;
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
  expect((await settlementOf(t, orderId))?.step).toBe(step);
}

/** The lease of the dead worker runs out: the survivor's clock moves past it. */
async function outliveLease(orderId: string): Promise<void> {
  const row = await settlementOf(t, orderId);
  const until = Math.max(row?.leaseExpiresAt?.getTime() ?? 0, row?.nextAttemptAt?.getTime() ?? 0);
  t.clock.set(new Date(Math.max(until, Date.now()) + 1_000));
}

async function expectSweptOnce(orderId: string, address: string, amount: bigint, hotBefore: bigint) {
  const settled = await sweepUntilSettled(t, orderId);
  expect(settled).toMatchObject({ status: "completed", step: "swept" });
  swept += amount;
  expect(await usdtBalance(t, cold.address)).toBe(swept);
  expect(await usdtBalance(t, address)).toBe(0n);
  // No energy left delegated to the address, and the hot wallet paid the activation once.
  expect(await delegatedEnergyStake(t, hot.address, address)).toBe(0n);
  const ledger = await ledgerOf(t, settled!.id);
  const landed = ledger.filter((r) => r.state === "solid" || r.state === "failed");
  expect(landed.map((r) => r.kind).sort()).toEqual(["activate", "delegate", "sweep", "undelegate"]);
  const burnt = hotBefore - (await trxBalance(t, hot.address)) - (await trxBalance(t, address));
  const [cost] = await costsOf(t, orderId);
  expect(cost?.trxBurnt).toBe(burnt);
  expect(cost?.activationTrx).toBe(burnt);
  expect(burnt).toBeLessThanOrEqual(1_100_000n);
}

describe("a delegate-mode worker dying right after storing a transaction", () => {
  for (const step of STEPS) {
    it(`finishes without stranding energy or paying twice: died at ${step}, before broadcasting`, async () => {
      t.clock.set(new Date());
      const order = await paidOrder(t, "6", 6_000_000n);
      const hotBefore = await trxBalance(t, hot.address);
      await dieInProcessAt(order.id, step);
      await outliveLease(order.id);
      await expectSweptOnce(order.id, order.address, 6_000_000n, hotBefore);
    });
  }
});

// Real processes need a database they can share: PostgreSQL only (PGlite lives inside one process).
if (process.env.TEST_DATABASE_URL) {
  describe("a delegate-mode worker process killed with SIGKILL", () => {
    for (const step of STEPS) {
      it(`finishes without stranding energy or paying twice: killed at ${step}`, async () => {
        t.clock.set(new Date());
        const order = await paidOrder(t, "8", 8_000_000n);
        const hotBefore = await trxBalance(t, hot.address);
        await killProcessAt(order.id, step);
        await outliveLease(order.id);
        await expectSweptOnce(order.id, order.address, 8_000_000n, hotBefore);
      });
    }
  });
}
