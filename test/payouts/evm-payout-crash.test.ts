/**
 * EVM payouts across a SIGKILL (issue 40): a real worker process (the worker role's payout and
 * outbox loops) killed after storing a payout's transfer and before its broadcast reached the node
 * (an RPC proxy holds every eth_sendRawTransaction), and one killed after the broadcast and before
 * completion. Each time a restarted worker completes the payout with exactly one transfer: the
 * recipient's balance and the hot wallet's nonce on Anvil prove it. PostgreSQL (a throwaway
 * cluster), Anvil over HTTP.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext, type Context } from "../../src/context.js";
import { payouts } from "../../src/db/schema.js";
import { creditMerchant } from "../../src/ledger/post-ledger.js";
import { createLogger } from "../../src/logger.js";
import { createPayout } from "../../src/payouts/create-payout.js";
import { decidePayout } from "../../src/payouts/decide-payout.js";
import { releasePayouts } from "../../src/payouts/payout-release.js";
import { claimDuePayouts } from "../../src/payouts/payout-store.js";
import { testConfig } from "../helpers/config.js";
import { evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { createPgCluster, type PgCluster } from "../helpers/pg-cluster.js";
import { poll } from "../helpers/poll.js";
import { addMerchant } from "../payments/helpers.js";

const SCRIPT = fileURLToPath(new URL("./evm-payout-process.ts", import.meta.url));
const devnet = evmDevnetForFile();
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
let cluster: PgCluster;
let dbUrl: string;
let ctx: Context;
let merchantId: string;
let proxy: Server;
let proxyUrl: string;
const held: string[] = [];
let estimateProxy: Server;
let estimateProxyUrl: string;
const estimates: string[] = [];
const children: ChildProcess[] = [];

/** Forwards JSON-RPC to Anvil, but holds every call of `method` without an answer (in `into`). */
function startHoldingProxy(target: string, method: string, into: string[]): Promise<Server> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (body.includes(`"${method}"`)) {
        into.push(body);
        return;
      }
      void fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body })
        .then(async (r) =>
          res.writeHead(r.status, { "content-type": "application/json" }).end(await r.text()),
        )
        .catch(() => res.writeHead(502).end());
    });
  });
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done(server)));
}

function spawnWorker(rpcUrl: string): { child: ChildProcess; output: () => string } {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: {
      ...process.env,
      DATABASE_URL: dbUrl,
      RPC_URL: rpcUrl,
      USDT_CONTRACT: devnet().usdtContract,
      HOT_KEY: hot.privateKey,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  children.push(child);
  return { child, output: () => output };
}

async function kill(child: ChildProcess) {
  child.kill("SIGKILL");
  if (child.exitCode === null && child.signalCode === null)
    await new Promise((done) => child.once("exit", done));
}

async function payout(id: string) {
  const [row] = await ctx.db.select().from(payouts).where(eq(payouts.id, id));
  if (!row) throw new Error(`payout ${id} not found`);
  return row;
}

async function approvedPayout(to: string, amount: string): Promise<string> {
  const { payout: created } = await createPayout(
    ctx,
    merchantId,
    { kind: "merchant", id: merchantId, label: "crash shop" },
    {
      external_id: `po-${randomBytes(6).toString("hex")}`,
      amount,
      address: to,
      chain: "arbitrum",
      currency: "USDT",
    },
  );
  await decidePayout(ctx, {
    id: created.id,
    decision: "approve",
    actor: { kind: "operator", id: "op-2", label: "second operator" },
  });
  return created.id;
}

/** A new worker started on the node itself until the payout is completed, then killed. */
async function completedByNewWorker(id: string) {
  const worker = spawnWorker(devnet().rpcUrl);
  const done = await poll("the payout completed", () => payout(id), {
    until: (row) => row.status === "completed",
    between: () => devnet().mine(),
    intervalMs: 300,
    timeoutMs: 60_000,
    describe: worker.output,
  });
  await kill(worker.child);
  return done;
}

const rpc = <T>(method: string, params: unknown[]) => devnet().rpc<T>(method, params);
const word = (a: string) => a.toLowerCase().replace(/^0x/, "").padStart(64, "0");
async function usdtOf(holder: string): Promise<bigint> {
  return BigInt(
    await rpc<string>("eth_call", [
      { to: devnet().usdtContract, data: "0x70a08231" + word(holder) },
      "latest",
    ]),
  );
}
async function hotNonce(): Promise<number> {
  return Number(BigInt(await rpc<string>("eth_getTransactionCount", [hot.address, "latest"])));
}

beforeAll(async () => {
  cluster = await createPgCluster({ databases: ["stablegate"] });
  dbUrl = cluster.url("stablegate");
  ctx = await createContext(
    testConfig({
      CHAINS: "tron,arbitrum",
      ARBITRUM_NETWORK: "devnet",
      ARBITRUM_RPC_URL: devnet().rpcUrl,
      ARBITRUM_USDT_CONTRACT: devnet().usdtContract,
      ARBITRUM_FINALITY: "finalized",
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      DATABASE_URL: dbUrl,
    }),
    { log: createLogger({ level: "silent" }) },
  );
  merchantId = (await addMerchant(ctx, "Crash Shop")).id;
  await creditMerchant(ctx.db, {
    merchantId,
    currency: "USDT",
    amount: 100_000_000n,
    kind: "payment_received",
    refType: "test",
    refId: "seed",
  });
  await rpc("anvil_setBalance", [hot.address, "0x" + (10n ** 20n).toString(16)]);
  await sendToken(devnet(), devnet().usdtContract, hot.address, 50_000_000n);
  await devnet().mine();
  proxy = await startHoldingProxy(devnet().rpcUrl, "eth_sendRawTransaction", held);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  estimateProxy = await startHoldingProxy(devnet().rpcUrl, "eth_estimateGas", estimates);
  estimateProxyUrl = `http://127.0.0.1:${(estimateProxy.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  for (const server of [proxy, estimateProxy]) {
    server?.closeAllConnections();
    server?.close();
  }
  await ctx?.database.close();
  await cluster?.destroy();
}, 60_000);

describe("EVM payouts across a SIGKILL", () => {
  it("a worker killed after storing and before the broadcast: the restarted one sends the stored bytes, paid once", async () => {
    const to = Wallet.createRandom().address;
    const id = await approvedPayout(to, "4.5");
    const nonce = await hotNonce();
    const first = spawnWorker(proxyUrl);
    const stored = await poll("the payout sending, its broadcast held", () => payout(id), {
      until: (row) => row.status === "sending" && held.length > 0,
      timeoutMs: 60_000,
      describe: first.output,
    });
    await kill(first.child);
    expect(await rpc("eth_getTransactionByHash", [stored.txHash])).toBeNull();

    const done = await completedByNewWorker(id);
    expect(done.txHash).toBe(stored.txHash);
    expect(await usdtOf(to)).toBe(4_500_000n);
    expect(await hotNonce()).toBe(nonce + 1);
  }, 150_000);

  it("a killed worker's lease is taken at once, a live worker's never: the payout is paid once", async () => {
    const to = Wallet.createRandom().address;
    const id = await approvedPayout(to, "1.25");
    const nonce = await hotNonce();
    // The worker claims the payout and waits in its gas estimate (held): it holds the lease.
    const first = spawnWorker(estimateProxyUrl);
    const leased = await poll("the payout leased, its gas estimate held", () => payout(id), {
      until: (row) => row.leaseOwner !== null && estimates.length > 0,
      timeoutMs: 60_000,
      describe: first.output,
    });
    expect(leased.status).toBe("approved");
    expect(leased.leaseOwner).toMatch(/^evm-payout-sender-arbitrum-\d+@\d+$/);
    const other = { chain: "arbitrum" as const };
    // Alive: another claim leaves it alone.
    expect(await claimDuePayouts(ctx, "test-claimer", 10, 60_000, other)).toEqual([]);
    await kill(first.child);
    // Dead: claimed at once, while the dead worker's lease has most of its 15 s still to run.
    const claimed = await poll(
      "the dead worker's payout claimed",
      () => claimDuePayouts(ctx, "test-claimer", 10, 60_000, other),
      { until: (ids) => ids.length > 0, timeoutMs: 5_000 },
    );
    expect(claimed).toEqual([id]);
    expect(leased.leaseExpiresAt?.getTime() ?? 0).toBeGreaterThan(Date.now() + 5_000);
    await releasePayouts(ctx, "test-claimer", [{ id, delayMs: 0 }]);

    const done = await completedByNewWorker(id);
    expect(done.attempts).toBe(1);
    expect(await usdtOf(to)).toBe(1_250_000n);
    expect(await hotNonce()).toBe(nonce + 1);
  }, 150_000);

  it("a worker killed after the broadcast and before completion: the restarted one completes it, paid once", async () => {
    const to = Wallet.createRandom().address;
    const id = await approvedPayout(to, "2");
    const nonce = await hotNonce();
    const first = spawnWorker(devnet().rpcUrl);
    const sent = await poll(
      "the payout's transaction at the node",
      async () => {
        const row = await payout(id);
        return row.txHash
          ? { row, tx: await rpc<unknown>("eth_getTransactionByHash", [row.txHash]) }
          : undefined;
      },
      { until: (v) => v !== undefined && v.tx !== null, timeoutMs: 60_000, describe: first.output },
    );
    await kill(first.child);
    // Landed and final while no worker runs.
    await devnet().mine(8);
    expect(await usdtOf(to)).toBe(2_000_000n);
    expect((await payout(id)).status).toBe("sending");

    const done = await completedByNewWorker(id);
    expect(done.txHash).toBe(sent?.row.txHash);
    expect(await usdtOf(to)).toBe(2_000_000n);
    expect(await hotNonce()).toBe(nonce + 1);
  }, 150_000);
});
