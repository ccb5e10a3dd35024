/**
 * A top-up sweep survives its worker dying at each step (docs/evm-sweeps.md "Exactly once"): a real
 * worker process (evm-sweeper-process.ts: the sweeper and outbox loops of ethereum) sends itself
 * SIGKILL right after the top-up's figures are stored, after the top-up is submitted, before the
 * sweep is submitted, once it is in the outbox (before the leg records it), and after that. This process then takes over once the dead worker's lease
 * has expired and finishes. Each order's USDC reaches the cold wallet once, exactly; the hot
 * wallet's nonce moved by one top-up per sweep and the deposit address's by one sweep.
 * The same for a sweep the base fee outran (docs/evm-sweeps.md "A sweep the fees outran"): every
 * block after the first top-up's is mined at a base fee the sweep's caps cannot pay, and the worker
 * dies once the replacement's figures are stored, once its extra top-up is submitted, and once the
 * re-signed sweep is stored but not sent. One Transfer lands, from the second generation.
 * PostgreSQL (a throwaway cluster, shared with the worker), Anvil over HTTP.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { JsonRpcProvider, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { queryRows } from "../../src/db/query-rows.js";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { runDueEvmSweeps, type EvmSweepStep } from "../../src/sweeps/evm-sweeps.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import {
  addressTopic,
  evmChainEnv,
  evmDevnetForFile,
  sendToken,
  TRANSFER_TOPIC,
  type EvmLog,
} from "../helpers/evm-devnet.js";
import { tokenBalance } from "../helpers/evm-sweeps.js";
import { createPgCluster, type PgCluster } from "../helpers/pg-cluster.js";
import { poll } from "../helpers/poll.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

const SCRIPT = fileURLToPath(new URL("./evm-sweeper-process.ts", import.meta.url));
const eth = evmDevnetForFile({ chainId: 31337 });
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
const cold = Wallet.createRandom().address.toLowerCase();
let cluster: PgCluster;
let t: TestApp;
let shop: TestMerchant;
let scanner: Scanner;
const children: ChildProcess[] = [];
const previousDbUrl = process.env.TEST_DATABASE_URL;

beforeAll(async () => {
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
      ...evmChainEnv("ethereum", eth()),
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: cold,
    },
  });
  await eth().rpc("anvil_setBalance", [hot.address, "0x" + (10n ** 19n).toString(16)]);
  shop = await addMerchant(t.ctx, "Crash Shop");
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

async function paidOrder(units: bigint) {
  const res = await postOrder(
    t,
    shop.apiKey,
    orderBody({ chain: "ethereum", currency: "USDC", amount: "3" }),
  );
  expect(res.statusCode, res.body).toBe(201);
  const order = res.json() as { id: string; address: string };
  await sendToken(eth(), eth().usdcContract, order.address, units);
  await eth().mine(1);
  await scanner.sync();
  await eth().mine(eth().finalityDepth + 1);
  await scanner.sync();
  return { id: order.id, address: order.address.toLowerCase() };
}

async function settlement(orderId: string) {
  const [row] = await queryRows<{ status: string; step: string | null }>(
    t.ctx.db,
    sql`SELECT status, step FROM settlements WHERE order_id = ${orderId}::uuid`,
  );
  return row;
}

async function outboxOf(address: string) {
  return queryRows<{ purpose: string; state: string; generation: number }>(
    t.ctx.db,
    sql`SELECT purpose, state, generation FROM evm_transactions
        WHERE chain = 'ethereum' AND (to_address = ${address} OR sender = ${address}) ORDER BY id`,
  );
}

/** The base fee that prices a sweep out: about twenty times what its caps cover. */
const HIGH_BASE_FEE = 50_000_000_000n;
/** Where set, every block after the address got its first top-up is mined at HIGH_BASE_FEE. */
let pricedOut: string | undefined;

async function mine() {
  if (pricedOut !== undefined && (await provider().getBalance(pricedOut)) > 0n)
    await eth().rpc("anvil_setNextBlockBaseFeePerGas", ["0x" + HIGH_BASE_FEE.toString(16)]);
  await eth().mine(1);
}

/** Starts a worker that kills itself at `step`, mining blocks until it is dead. */
async function killWorkerAt(step: EvmSweepStep): Promise<string> {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: {
      ...process.env,
      DATABASE_URL: t.testDb.url,
      ...evmChainEnv("ethereum", eth()),
      ETHEREUM_RPC_URL: eth().rpcUrl,
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: cold,
      WORKER_ID: `doomed-${step}`,
      KILL_AT: step,
      REPLACE_AFTER_MS: "1000",
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
    between: mine,
    describe: async () => ({
      output,
      settlements: await queryRows(
        t.ctx.db,
        sql`SELECT status, step, last_error, next_attempt_at::text, lease_owner FROM settlements WHERE status <> 'completed'`,
      ),
    }),
  });
}

/** This process's own sweeper and outbox turns, the clock past the dead worker's lease. */
async function survive(orderId: string) {
  await poll("the survivor to finish the sweep", async () => (await settlement(orderId))?.status, {
    until: (s) => s === "completed",
    timeoutMs: 60_000,
    intervalMs: 0,
    between: async () => {
      t.clock.advance(61_000);
      await runDueEvmSweeps(t.ctx, "ethereum", { owner: "survivor" });
      await runOutbox(t.ctx, "ethereum", { signers: signerLookup(t.ctx, "ethereum"), resendAll: true });
      await mine();
    },
    describe: () =>
      queryRows(t.ctx.db, sql`SELECT purpose, state, generation, ref FROM evm_transactions ORDER BY id`),
  });
}

describe("EVM top-up sweeps across a SIGKILL", () => {
  const steps: EvmSweepStep[] = ["gas_stored", "gas_sent", "sweep_stored", "sweep_submitted", "sweep_sent"];
  it.each(steps)(
    "lands the top-up and the sweep once when the worker dies at %s",
    async (step) => {
      // The survivor of the case before moved this clock ahead: back to the worker's real time.
      t.clock.set(new Date());
      const p = provider();
      const units = 3_000_000n + BigInt(steps.indexOf(step));
      const order = await paidOrder(units);
      const coldBefore = await tokenBalance(p, eth().usdcContract, cold);
      const hotNonceBefore = await p.getTransactionCount(hot.address, "latest");

      expect(await killWorkerAt(step)).toBe("SIGKILL");
      await survive(order.id);

      expect(await tokenBalance(p, eth().usdcContract, cold)).toBe(coldBefore + units);
      expect(await tokenBalance(p, eth().usdcContract, order.address)).toBe(0n);
      expect(await settlement(order.id)).toEqual({ status: "completed", step: "swept" });
      expect(await outboxOf(order.address)).toEqual([
        { purpose: "sweep_gas", state: "final", generation: 0 },
        { purpose: "sweep", state: "final", generation: 0 },
      ]);
      expect(await p.getTransactionCount(hot.address, "latest")).toBe(hotNonceBefore + 1);
      expect(await p.getTransactionCount(order.address, "latest")).toBe(1);
    },
    120_000,
  );
});

describe("a top-up sweep the base fee outran, across a SIGKILL", () => {
  const steps: EvmSweepStep[] = ["bump_stored", "bump_gas_sent", "bump_sweep_stored"];
  it.each(steps)(
    "replaces the sweep once, at the same nonce, when the worker dies at %s",
    async (step) => {
      t.clock.set(new Date());
      const p = provider();
      const units = 4_000_000n + BigInt(steps.indexOf(step));
      const order = await paidOrder(units);
      const coldBefore = await tokenBalance(p, eth().usdcContract, cold);
      const hotNonceBefore = await p.getTransactionCount(hot.address, "latest");
      pricedOut = order.address;
      try {
        expect(await killWorkerAt(step)).toBe("SIGKILL");
        await survive(order.id);
      } finally {
        pricedOut = undefined;
      }

      expect(await tokenBalance(p, eth().usdcContract, cold)).toBe(coldBefore + units);
      expect(await tokenBalance(p, eth().usdcContract, order.address)).toBe(0n);
      expect(await settlement(order.id)).toEqual({ status: "completed", step: "swept" });
      expect(await outboxOf(order.address)).toEqual([
        { purpose: "sweep_gas", state: "final", generation: 0 },
        { purpose: "sweep", state: "replaced", generation: 0 },
        { purpose: "sweep_gas", state: "final", generation: 0 },
        { purpose: "sweep", state: "final", generation: 1 },
      ]);
      const transfers = await eth().rpc<EvmLog[]>("eth_getLogs", [
        {
          fromBlock: "0x0",
          toBlock: "latest",
          address: eth().usdcContract,
          topics: [TRANSFER_TOPIC, addressTopic(order.address)],
        },
      ]);
      expect(transfers.map((l) => BigInt(l.data))).toEqual([units]);
      expect(await p.getTransactionCount(hot.address, "latest")).toBe(hotNonceBefore + 2);
      expect(await p.getTransactionCount(order.address, "latest")).toBe(1);
    },
    120_000,
  );
});
