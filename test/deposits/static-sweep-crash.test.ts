/**
 * A static deposit address's sweep by balance survives its worker dying at each step of the sweep
 * transfer (after signing, after storing, after broadcasting, while waiting for the solidified
 * chain): every deposit is swept exactly once, proven by the chain's own USDT transfers to the cold
 * wallet, and the balances are exact (the cold wallet holds the deposits, the address nothing, the
 * merchant's ledger every deposit, and check-ledger agrees).
 *
 * - On PostgreSQL (TEST_DATABASE_URL) the worker is a real process (static-sweeper-process.ts) that
 *   SIGKILLs itself at the step.
 * - On PGlite (one process only) an in-process worker stops dead at the step: its run never returns,
 *   its lease stays held, and it touches nothing more.
 * Then another worker takes the settlement over once the lease has expired and finishes it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { and, asc, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deposits, settlements, sweepTransactions } from "../../src/db/schema.js";
import { createDepositAddress } from "../../src/deposits/create-deposit-address.js";
import { checkLedger } from "../../src/ledger/check-ledger.js";
import { getMerchantBalance } from "../../src/ledger/post-ledger.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import type { SweepStep } from "../../src/sweeps/sweep-types.js";
import { chainTransfers, type ChainTest } from "../chain/helpers.js";
import { startWalletChainTest } from "../sweeps/delegate-helpers.js";
import { usdtBalance } from "../helpers/usdt.js";
import { poll } from "../helpers/poll.js";

const SCRIPT = fileURLToPath(new URL("./static-sweeper-process.ts", import.meta.url));
const USDT = 1_000_000n;
const STEPS: SweepStep[] = ["signed", "stored", "broadcast", "waiting"];
const SWEEP_MIN_USDT = "15";

let t: ChainTest;
let hot: { privateKey: string; address: string };
let cold: { address: string };
let coldExpected = 0n;
let credited = 0n;
const children: ChildProcess[] = [];

beforeAll(async () => {
  ({ t, hot, cold } = await startWalletChainTest(
    { SWEEP_ENABLED: "true", SWEEP_MODE: "burn", SWEEP_MIN_USDT, DEPOSIT_MIN_USDT: "1" },
    { trx: "10000" },
  ));
  await t.scanner.sync();
  // The worker processes use the real time; so does the survivor from here on.
  t.clock.set(new Date());
}, 120_000);
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await t?.close();
});

async function settlementOf(address: string) {
  const [row] = await t.ctx.db
    .select()
    .from(settlements)
    .where(and(eq(settlements.address, address), isNull(settlements.orderId)));
  return row;
}

const json = (value: unknown) =>
  JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v));

/** A real worker process that SIGKILLs itself at `step` of the sweep transfer. */
async function killProcessAt(address: string, step: SweepStep): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: {
      ...process.env,
      DATABASE_URL: t.testDb.url ?? "",
      TRON_NODE_URL: t.devnet.url,
      USDT_CONTRACT: t.devnet.usdtContract,
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: cold.address,
      SWEEP_MIN_USDT,
      CRASH_AT: step,
      WORKER_ID: `static-crash-${step}`,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const exited = new Promise<string>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? String(code))),
  );
  const dead = () => child.exitCode !== null || child.signalCode !== null;
  // The chain moves only until the sweep transfer is stored, so a worker to die while waiting
  // finds it waiting.
  await poll(`the worker to die after ${step}`, dead, {
    timeoutMs: 120_000,
    intervalMs: 150,
    between: async () => {
      if ((await settlementOf(address))?.step !== "sweep_sent") t.devnet.mine(1);
    },
    describe: async () => ({
      settlement: await settlementOf(address),
      exit: child.exitCode ?? child.signalCode,
    }),
  });
  expect(await exited).toBe("SIGKILL");
}

/** An in-process worker that stops dead at `step` of the sweep transfer (PGlite). */
async function freezeInProcessAt(address: string, step: SweepStep): Promise<void> {
  let reached = false;
  let atStep: () => void = () => undefined;
  const arrived = new Promise<"step">((resolve) => (atStep = () => resolve("step")));
  const deadline = Date.now() + 120_000;
  while (!reached) {
    if (Date.now() > deadline)
      throw new Error(`the worker never reached ${step}: ${json(await settlementOf(address))}`);
    const run = runDueSweeps(t.ctx, {
      owner: `static-frozen-${step}`,
      onStep: (s, kind) => {
        if (s !== step || kind !== "sweep") return;
        reached = true;
        atStep();
        return new Promise<void>(() => undefined); // dead: never goes on
      },
    });
    if ((await Promise.race([run.then(() => "ran" as const), arrived])) === "step") break;
    if ((await settlementOf(address))?.step !== "sweep_sent") t.devnet.mine(1);
    t.clock.advance(3_100); // past the sweeper's wait between looks
  }
}

/** The survivor: past the dead worker's lease, it sweeps until the settlement is over. */
async function survive(address: string) {
  const row = await settlementOf(address);
  const until = Math.max(row?.leaseExpiresAt?.getTime() ?? 0, row?.nextAttemptAt?.getTime() ?? 0);
  t.clock.set(new Date(Math.max(until, Date.now()) + 1_000));
  for (let i = 0; i < 40; i++) {
    await runDueSweeps(t.ctx, { owner: "survivor" });
    const now = await settlementOf(address);
    if (now?.status === "completed" || now?.status === "failed") return now;
    t.devnet.mine(1);
    t.clock.advance(61_000);
    await t.scanner.sync();
  }
  return settlementOf(address);
}

describe("a static-address sweep whose worker dies at each step of the sweep transfer", () => {
  for (const step of STEPS) {
    it(
      `sweeps every deposit exactly once when the worker dies after ${step}`,
      { timeout: 300_000 },
      async () => {
        t.clock.set(new Date());
        const { depositAddress: da } = await createDepositAddress(t.ctx, t.merchantId, {
          customerRef: `crash-${step}`,
          callbackUrl: "https://merchant.example.com/deposits",
        });
        const startBlock = (await t.cursor()) ?? 0;
        // 5 + 6 + 7 = 18 >= 15: confirmed, the address is due for a sweep by balance.
        for (const amount of [5n, 6n, 7n]) {
          await t.pay(da.address, amount * USDT);
          t.mine(1);
        }
        await t.finalize();
        credited += 18n * USDT;
        expect(await settlementOf(da.address)).toMatchObject({ status: "waiting", round: 1 });
        t.clock.set(new Date());

        if (t.testDb.url) await killProcessAt(da.address, step);
        else await freezeInProcessAt(da.address, step);
        const atDeath = await settlementOf(da.address);
        expect(atDeath?.status).toBe("active");
        const storedAtDeath = await t.ctx.db
          .select()
          .from(sweepTransactions)
          .where(
            and(eq(sweepTransactions.settlementId, atDeath?.id ?? ""), eq(sweepTransactions.kind, "sweep")),
          );
        // After signing nothing is stored yet; from storing on, the signed transfer is.
        expect(storedAtDeath).toHaveLength(step === "signed" ? 0 : 1);

        const done = await survive(da.address);
        expect(done).toMatchObject({ status: "completed", step: "swept", round: 1, amount: 18n * USDT });

        // Exactly once, by the chain: one USDT transfer reached the cold wallet for this address.
        coldExpected += 18n * USDT;
        const head = (await t.cursor()) ?? 0;
        expect(await chainTransfers(t, new Set([cold.address]), startBlock, head)).toHaveLength(1);
        expect(await usdtBalance(t.devnet, cold.address)).toBe(coldExpected);
        expect(await usdtBalance(t.devnet, da.address)).toBe(0n);
        const sweeps = await t.ctx.db
          .select()
          .from(sweepTransactions)
          .where(
            and(eq(sweepTransactions.settlementId, done?.id ?? ""), eq(sweepTransactions.kind, "sweep")),
          );
        expect(sweeps.filter((s) => s.state === "solid")).toHaveLength(1);
        // The bytes stored before the death are the ones that landed.
        if (step !== "signed")
          expect(sweeps.map((s) => s.txHash)).toEqual(storedAtDeath.map((s) => s.txHash));

        // Every deposit in that one round; the merchant's balance holds every deposit.
        const rows = await t.ctx.db
          .select()
          .from(deposits)
          .where(eq(deposits.depositAddressId, da.id))
          .orderBy(asc(deposits.blockNumber));
        expect(rows.map((d) => [d.amount, d.status, d.settlementId, d.sweepRound])).toEqual(
          [5n, 6n, 7n].map((a) => [a * USDT, "confirmed", done?.id, 1]),
        );
        expect(await getMerchantBalance(t.ctx.db, t.merchantId)).toMatchObject({ available: credited });
        expect(await checkLedger(t.ctx.db)).toEqual([]);
      },
    );
  }
});
