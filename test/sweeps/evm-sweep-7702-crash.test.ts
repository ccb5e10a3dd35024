/**
 * A 7702 sweep (EVM_SWEEP_MODE=7702, docs/evm-sweeps.md) survives its worker dying at each step: a
 * real worker process (evm-sweeper-process.ts: the sweeper and outbox loops of ethereum) sends
 * itself SIGKILL right after the sweep's figures are stored (before the submit), right after the
 * sweep is in the outbox (before the leg records it) and once the leg is `sweep_sent`, once on an address's first sweep (the type-4 transaction carrying the
 * deposit key's authorization) and once on a later one (a plain call, the delegation in place).
 * This process then takes over once the dead worker's lease has expired and finishes. Each payment
 * reaches the cold wallet once, exactly; the hot wallet's nonce moved by one transaction per
 * sweep; the address was delegated once, and no ETH was ever sent to it.
 * PostgreSQL (a throwaway cluster, shared with the worker), Anvil over HTTP.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { JsonRpcProvider, Transaction, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { delegationCode } from "@stablegate/devnet";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { queryRows } from "../../src/db/query-rows.js";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { runDueEvmSweeps, type EvmSweepStep } from "../../src/sweeps/evm-sweeps.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { automineProvider, deploySweeper, tokenBalance } from "../helpers/evm-sweeps.js";
import { createPgCluster, type PgCluster } from "../helpers/pg-cluster.js";
import { poll } from "../helpers/poll.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

const SCRIPT = fileURLToPath(new URL("./evm-sweeper-process.ts", import.meta.url));
const eth = evmDevnetForFile({ chainId: 31337 });
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
const cold = Wallet.createRandom().address.toLowerCase();
let sweeper: string;
let cluster: PgCluster;
let t: TestApp;
let shop: TestMerchant;
let scanner: Scanner;
const children: ChildProcess[] = [];
const previousDbUrl = process.env.TEST_DATABASE_URL;

beforeAll(async () => {
  const d = eth();
  const deployer = new Wallet(d.faucetPrivateKey, await automineProvider(d));
  sweeper = (await deploySweeper(deployer, cold)).toLowerCase();
  await d.rpc("evm_setAutomine", [false]);
  cluster = await createPgCluster();
  // The worker process and this one share the database: a PostgreSQL one.
  process.env.TEST_DATABASE_URL = cluster.url("postgres");
  t = await createTestApp({
    env: {
      CHAINS: "ethereum",
      CONFIRMATIONS: "1",
      POOL_MIN_FREE: "5",
      SWEEP_ENABLED: "true",
      SWEEP_MIN_USDT: "1",
      ...evmChainEnv("ethereum", d),
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: cold,
      EVM_SWEEP_MODE: "7702",
      EVM_SWEEPER_CONTRACT: sweeper,
    },
  });
  await d.rpc("anvil_setBalance", [hot.address, "0x" + (10n ** 19n).toString(16)]);
  shop = await addMerchant(t.ctx, "Delegating Crash Shop");
  await fillAddressPools(t.ctx);
  const chain = t.ctx.chains.get("ethereum");
  if (!chain) throw new Error("ethereum is not enabled");
  scanner = createScanner(t.ctx, { chain, retry: FAST_RETRY, maxIdleMs: 50 });
  await scanner.sync();
  // The worker runs on the real clock; so does this process, so that its lease expires here too.
  t.clock.set(new Date());
}, 120_000);
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await t?.close();
  if (previousDbUrl === undefined) delete process.env.TEST_DATABASE_URL;
  else process.env.TEST_DATABASE_URL = previousDbUrl;
  await cluster?.destroy();
}, 60_000);

const provider = () => new JsonRpcProvider(eth().rpcUrl, eth().chainId, { staticNetwork: true });

async function newOrder() {
  const res = await postOrder(
    t,
    shop.apiKey,
    orderBody({ chain: "ethereum", currency: "USDC", amount: "3" }),
  );
  expect(res.statusCode, res.body).toBe(201);
  const order = res.json() as { id: string; address: string };
  return { id: order.id, address: order.address.toLowerCase() };
}

async function pay(address: string, units: bigint) {
  await sendToken(eth(), eth().usdcContract, address, units);
  await eth().mine(1);
  await scanner.sync();
  await eth().mine(eth().finalityDepth + 1);
  await scanner.sync();
}

async function settlement(orderId: string) {
  const [row] = await queryRows<{ status: string; step: string | null; round: number }>(
    t.ctx.db,
    sql`SELECT status, step, round FROM settlements WHERE order_id = ${orderId}::uuid`,
  );
  return row;
}

async function sweepsOf(address: string) {
  return queryRows<{ sender: string; state: string; generation: number; raw: string }>(
    t.ctx.db,
    sql`SELECT sender, state, generation, raw FROM evm_transactions
        WHERE chain = 'ethereum' AND (to_address = ${address} OR sender = ${address}) ORDER BY id`,
  );
}

/** Starts a worker that kills itself at `step`, mining blocks until it is dead. */
async function killWorkerAt(step: EvmSweepStep, label: string): Promise<string> {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: {
      ...process.env,
      DATABASE_URL: t.testDb.url,
      ...evmChainEnv("ethereum", eth()),
      ETHEREUM_RPC_URL: eth().rpcUrl,
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: cold,
      EVM_SWEEP_MODE: "7702",
      EVM_SWEEPER_CONTRACT: sweeper,
      WORKER_ID: `doomed-${label}-${step}`,
      KILL_AT: step,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  let exit: string | undefined;
  child.once("exit", (code, signal) => (exit = signal ?? String(code)));
  return poll(`the worker to die at ${step}`, () => exit, {
    timeoutMs: 60_000,
    intervalMs: 300,
    between: () => eth().mine(1),
    describe: async () => ({
      output,
      settlements: await queryRows(
        t.ctx.db,
        sql`SELECT status, step, last_error, next_attempt_at::text, lease_owner FROM settlements WHERE status <> 'completed'`,
      ),
    }),
  });
}

/** This process's own sweeper and outbox turns, the clock past any dead worker's lease. */
async function survive(orderId: string, round: number) {
  await poll(`round ${round} swept by the survivor`, () => settlement(orderId), {
    until: (s) => s?.status === "completed" && s.round === round,
    timeoutMs: 60_000,
    intervalMs: 0,
    between: async () => {
      t.clock.advance(121_000);
      await runDueEvmSweeps(t.ctx, "ethereum", { owner: "survivor" });
      await runOutbox(t.ctx, "ethereum", { signers: signerLookup(t.ctx, "ethereum"), resendAll: true });
      await eth().mine(1);
    },
  });
}

describe("EVM 7702 sweeps across a SIGKILL", () => {
  const steps: EvmSweepStep[] = ["sweep_stored", "sweep_submitted", "sweep_sent"];
  const cases = (["first", "later"] as const).flatMap((sweep) => steps.map((step) => [sweep, step] as const));
  it.each(cases)(
    "lands the %s sweep once when the worker dies at %s",
    async (sweep, step) => {
      // The survivor of the case before moved this clock ahead: back to the worker's real time.
      t.clock.set(new Date());
      const p = provider();
      const order = await newOrder();
      const units = 3_000_000n + BigInt(cases.findIndex((c) => c[0] === sweep && c[1] === step));
      let round = 1;
      if (sweep === "later") {
        // The first sweep (with the authorization) goes through here; the kill hits the second.
        await pay(order.address, 2_000_000n);
        await survive(order.id, 1);
        t.clock.set(new Date());
        round = 2;
      }
      await pay(order.address, units);
      const coldBefore = await tokenBalance(p, eth().usdcContract, cold);
      const hotNonceBefore = await p.getTransactionCount(hot.address, "latest");

      expect(await killWorkerAt(step, sweep)).toBe("SIGKILL");
      await survive(order.id, round);

      expect(await tokenBalance(p, eth().usdcContract, cold)).toBe(coldBefore + units);
      expect(await tokenBalance(p, eth().usdcContract, order.address)).toBe(0n);
      expect(await p.getBalance(order.address)).toBe(0n);
      expect(await p.getCode(order.address)).toBe(delegationCode(sweeper));
      // One authorization was ever applied to the address (it sends nothing itself).
      expect(await p.getTransactionCount(order.address, "latest")).toBe(1);
      expect(await settlement(order.id)).toEqual({ status: "completed", step: "swept", round });
      const txs = await sweepsOf(order.address);
      expect(txs.map((x) => [x.sender, x.state, x.generation])).toEqual(
        Array.from({ length: round }, () => [hot.address.toLowerCase(), "final", 0]),
      );
      expect(txs.map((x) => Transaction.from(x.raw).type)).toEqual(round === 1 ? [4] : [4, 2]);
      expect(await p.getTransactionCount(hot.address, "latest")).toBe(hotNonceBefore + 1);
    },
    120_000,
  );
});
