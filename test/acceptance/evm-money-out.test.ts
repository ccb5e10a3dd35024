/**
 * Issue 40's "Done when", as one acceptance test through the public interfaces: on the devnet, a
 * merchant's Ethereum USDC and BSC USDT (18 decimals) orders are swept to the cold wallet to the
 * last unit; a refund to the payer's Polygon address and a payout on Arbitrum are approved by a
 * second operator (the first, who was shown the merchant's key, is refused) and paid exactly once
 * through a worker SIGKILL and a reorganisation; `stablegate check-ledger` passes over every chain.
 *
 * Real parts only: `stablegate serve --role api` and `--role worker` processes on PostgreSQL (a
 * throwaway cluster), one Anvil per chain as the service sees them (ethereum, bsc with the
 * 18-decimal USDT, polygon, arbitrum), the merchant on the SDK, the payer signing with ethers from
 * an Anvil dev account, the webhooks at a real HTTP receiver verified by the SDK, the operators on
 * the admin API with TOTP, and check-ledger as a process. The test mines the blocks itself (every
 * 250 ms, paused per chain where it decides when a transaction lands). DONE_WHEN_TIMING=1 prints
 * when each stage was reached.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { Contract, HDNodeWallet, JsonRpcProvider, Network, Wallet } from "ethers";
import { generateSync } from "otplib";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, createNodeWebhookHandler, type StablegateClient } from "@stablegate/sdk";
import { startEvmDevnet, type EvmDevnet } from "@stablegate/devnet";
import { TEST_ADMIN_PASSWORD, TEST_MNEMONIC, TEST_SECRETS } from "../helpers/config.js";
import { addressTopic, evmChainEnv, sendToken, TRANSFER_TOPIC } from "../helpers/evm-devnet.js";
import { createPgCluster, freePort, type PgCluster } from "../helpers/pg-cluster.js";
import { poll } from "../helpers/poll.js";
import { startServiceProcess, type ServiceProcess } from "../helpers/service-process.js";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const CHAINS = ["ethereum", "bsc", "polygon", "arbitrum"] as const;
type Chain = (typeof CHAINS)[number];
const E12 = 10n ** 12n;
const ETH = 10n ** 18n;
const WEBHOOK_SECRET = "whsec_done_when_0123456789abcdef";
const PASSWORD = "correct horse battery staple";
/** Anvil's dev account #1 (the "test … junk" mnemonic; #0 is the devnet's faucet): the payer. */
const payer = HDNodeWallet.fromPhrase(
  "test test test test test test test test test test test junk",
  undefined,
  "m/44'/60'/0'/0/1",
);
const hot = Wallet.createRandom();
const cold = Wallet.createRandom().address;
const payee = Wallet.createRandom().address;

const nets = {} as Record<Chain, EvmDevnet>;
/** The token each chain's orders and payouts use: bsc's is the 18-decimal USDT, as on BSC. */
const tokenOf = (chain: Chain, currency: "USDT" | "USDC" = "USDT") =>
  currency === "USDC"
    ? nets[chain].usdcContract
    : chain === "bsc"
      ? nets.bsc.usdt18Contract
      : nets[chain].usdtContract;
/** Token units of `micro` micro-units on `chain`: exact, 10^12 per micro-unit on bsc. */
const unitsOf = (chain: Chain, micro: bigint) => (chain === "bsc" ? micro * E12 : micro);
const decimal = (micro: bigint) =>
  `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, "0")}`;

let cluster: PgCluster;
let dbUrl: string;
let apiUrl: string;
let api: ServiceProcess;
let worker: ServiceProcess;
const processes: ServiceProcess[] = [];
let receiver: Server;
let hooksUrl: string;
/** Every verified webhook, once per idempotency key (the SDK handler dedupes re-deliveries). */
const events: { key: string; event: Record<string, unknown> }[] = [];
/** Webhook requests the SDK handler refused (a bad signature, a stale timestamp): none expected. */
const refusedHooks: number[] = [];
let dataDir: string;

// ---- Blocks: a block on every chain each 250 ms, unless the test holds a chain.
const held = new Set<Chain>();
let mining: Promise<unknown> | undefined;
let minerTimer: NodeJS.Timeout | undefined;
function startMiner() {
  minerTimer = setInterval(() => {
    if (mining) return;
    mining = Promise.all(CHAINS.filter((c) => !held.has(c)).map((c) => nets[c].mine(1)))
      .catch(() => undefined)
      .finally(() => (mining = undefined));
  }, 250);
}
/** Holds `chain`'s blocks (a block being mined lands first). */
async function hold(...chains: Chain[]) {
  for (const c of chains) held.add(c);
  await mining;
}

const outputs = () =>
  processes
    .slice(-4)
    .map((p) => `--- ${p.role} (alive ${p.alive()}) ---\n${p.output().slice(-3000)}`)
    .join("\n");

function env(extra: Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: "development",
    LOG_LEVEL: "warn",
    DATABASE_URL: dbUrl,
    ...TEST_SECRETS,
    CHAINS: CHAINS.join(","),
    ...evmChainEnv("ethereum", nets.ethereum),
    ...evmChainEnv("bsc", nets.bsc, nets.bsc.usdt18Contract),
    ...evmChainEnv("polygon", nets.polygon),
    ...evmChainEnv("arbitrum", nets.arbitrum),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    WALLET_MNEMONIC: TEST_MNEMONIC,
    EVM_HOT_WALLET_ADDRESS: hot.address,
    EVM_COLD_WALLET_ADDRESS: cold,
    SWEEP_ENABLED: "true",
    SWEEP_MIN_USDT: "0.5",
    WORKER_LEASE_SECONDS: "10",
    ...extra,
  };
}

async function startWorker(): Promise<ServiceProcess> {
  const w = startServiceProcess(
    "worker",
    env({ PORT: String(await freePort()), EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey }),
  );
  w.role = `worker ${processes.filter((p) => p.role.startsWith("worker")).length + 1}`;
  processes.push(w);
  return w;
}

// ---- The admin API, as an operator's browser would call it (a cookie per operator).
async function admin(
  cookie: string,
  method: string,
  path: string,
  body?: Record<string, unknown>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${apiUrl}/api/v1/admin${path}`, {
    method,
    headers: { cookie, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function login(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${apiUrl}/api/v1/admin/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  if (res.status !== 200 || !cookie) throw new Error(`login: ${res.status} ${await res.text()}`);
  return cookie;
}

/**
 * An operator with TOTP, as a person would enrol in the dashboard. Codes are computed at each use
 * (otplib, the authenticator's library): a step is accepted once, with one step of drift either way,
 * so each use takes the next unused step that is valid now.
 */
interface Operator {
  email: string;
  cookie: string;
  secret: string;
  lastStep: number;
}
function nextCode(op: Operator): string {
  const now = Math.floor(Date.now() / 1000 / 30);
  const step = Math.max(op.lastStep + 1, now - 1);
  if (step > now + 1) throw new Error(`${op.email} has used every TOTP step valid now`);
  op.lastStep = step;
  return generateSync({ secret: op.secret, epoch: step * 30 });
}
async function operator(ownerCookie: string, email: string): Promise<Operator> {
  const created = await admin(ownerCookie, "POST", "/operators", {
    name: email,
    email,
    role: "admin",
    password: PASSWORD,
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const cookie = await login({ email, password: PASSWORD });
  const setup = await admin(cookie, "POST", "/me/totp/setup", { current_password: PASSWORD });
  expect(setup.status, JSON.stringify(setup.json)).toBe(200);
  const op: Operator = { email, cookie, secret: setup.json.secret as string, lastStep: 0 };
  const confirm = await admin(cookie, "POST", "/me/totp/confirm", { totp_code: nextCode(op) });
  expect(confirm.status, JSON.stringify(confirm.json)).toBe(200);
  return op;
}

// ---- Chain reads, with ethers and plain JSON-RPC.
function provider(chain: Chain) {
  // A plain Network of the chain id: ethers' own "matic" network would ask Polygon's gas station.
  const network = new Network(`${chain}-devnet`, nets[chain].chainId);
  return new JsonRpcProvider(nets[chain].rpcUrl, network, { staticNetwork: network });
}
/** `token`'s balanceOf(`holder`) at `blockTag` (default the newest block). */
async function balanceOf(chain: Chain, token: string, holder: string, blockTag?: number): Promise<bigint> {
  const p = provider(chain);
  try {
    const c = new Contract(token, ["function balanceOf(address) view returns (uint256)"], p);
    return (await c.getFunction("balanceOf")(holder, blockTag === undefined ? {} : { blockTag })) as bigint;
  } finally {
    p.destroy();
  }
}
async function nonceOf(chain: Chain, address: string): Promise<number> {
  const p = provider(chain);
  try {
    return await p.getTransactionCount(address, "latest");
  } finally {
    p.destroy();
  }
}
/** Every Transfer log of `token` to `to` over the whole chain. */
async function transfersTo(chain: Chain, token: string, to: string) {
  const logs = await nets[chain].rpc<{ topics: string[]; data: string; transactionHash: string }[]>(
    "eth_getLogs",
    [
      {
        fromBlock: "0x0",
        toBlock: "latest",
        address: token,
        topics: [TRANSFER_TOPIC, null, addressTopic(to)],
      },
    ],
  );
  return logs.map((l) => ({
    from: "0x" + (l.topics[1] as string).slice(26),
    units: BigInt(l.data),
    hash: l.transactionHash,
  }));
}
const receipt = (chain: Chain, hash: string) =>
  nets[chain].rpc<{ status: string; blockNumber: string } | null>("eth_getTransactionReceipt", [hash]);

let ownerCookie: string;
let alice: Operator;
let bob: Operator;
let shop: StablegateClient;
let apiKey: string;

const T0 = Date.now();
const mark = (what: string) =>
  process.env.DONE_WHEN_TIMING && process.stderr.write(`${Date.now() - T0} ms: ${what}\n`);
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "sg-done-when-"));
  const [pgc, ethereum, bsc, polygon, arbitrum] = await Promise.all([
    createPgCluster({ databases: ["stablegate"] }),
    startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 4, chainId: 1 }),
    startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 4, chainId: 56 }),
    startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 4, chainId: 137 }),
    startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 4, chainId: 42161 }),
  ]);
  cluster = pgc;
  mark("pg and anvils");
  dbUrl = cluster.url("stablegate");
  Object.assign(nets, { ethereum, bsc, polygon, arbitrum });

  // The operator's wallets: the EVM hot wallet holds gas on every chain (sweep top-ups, payouts)
  // and the payout float on Polygon and Arbitrum; the payer (an Anvil dev account, ETH already
  // there) holds the tokens it pays with.
  for (const chain of CHAINS) {
    await nets[chain].rpc("anvil_setBalance", [hot.address, "0x" + (100n * ETH).toString(16)]);
  }
  await sendToken(nets.polygon, tokenOf("polygon"), hot.address, 100_000_000n);
  await sendToken(nets.arbitrum, tokenOf("arbitrum"), hot.address, 100_000_000n);
  await sendToken(nets.ethereum, tokenOf("ethereum", "USDC"), payer.address, 100_000_000n);
  await sendToken(nets.bsc, tokenOf("bsc"), payer.address, 100n * ETH);
  await sendToken(nets.polygon, tokenOf("polygon"), payer.address, 100_000_000n);
  await Promise.all(CHAINS.map((c) => nets[c].mine(1)));

  receiver = createServer((req, res) => {
    res.on("finish", () => {
      if (res.statusCode >= 300) refusedHooks.push(res.statusCode);
    });
    void handler(req, res);
  });
  const handler = createNodeWebhookHandler({
    secret: WEBHOOK_SECRET,
    onEvent: (event, delivery) => {
      events.push({ key: delivery.idempotencyKey, event: event as unknown as Record<string, unknown> });
    },
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  hooksUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/stablegate/webhook`;

  const apiPort = await freePort();
  apiUrl = `http://127.0.0.1:${apiPort}`;
  api = startServiceProcess("api", env({ PORT: String(apiPort) }));
  processes.push(api);
  worker = await startWorker();
  startMiner();
  mark("processes spawned");
  await poll(
    "the api to answer",
    async () => (await fetch(`${apiUrl}/api/v1/health/live`).catch(() => null))?.status === 200,
    { timeoutMs: 90_000, intervalMs: 250, describe: outputs },
  );

  mark("api answers");
  ownerCookie = await login({ password: TEST_ADMIN_PASSWORD });
  alice = await operator(ownerCookie, "alice@example.com");
  bob = await operator(ownerCookie, "bob@example.com");
  mark("operators");
  // Alice creates the merchant: she was shown its API key, so she may not approve what it asks.
  const merchant = await admin(alice.cookie, "POST", "/merchants", {
    name: "Done When Shop",
    webhook_secret: WEBHOOK_SECRET,
  });
  expect(merchant.status, JSON.stringify(merchant.json)).toBe(201);
  apiKey = merchant.json.api_key as string;
  shop = createClient({ baseUrl: apiUrl, apiKey });
}, 150_000);

afterAll(async () => {
  if (minerTimer) clearInterval(minerTimer);
  await mining;
  await Promise.all(
    processes.map(async (p) => {
      if (p.alive()) p.child.kill("SIGKILL");
      await p.exited;
    }),
  );
  receiver?.closeAllConnections();
  receiver?.close();
  await Promise.all(CHAINS.map((c) => nets[c]?.close()));
  await cluster?.destroy();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe("issue 40, done when", () => {
  it("sweeps Ethereum USDC and BSC USDT to the last unit; pays a Polygon refund and an Arbitrum payout once, through a kill and a reorganisation; check-ledger passes", async () => {
    // ---- Orders, paid by the payer from its own account.
    const wanted = [
      { chain: "ethereum", currency: "USDC", amount: "12.345678", micro: 12_345_678n },
      { chain: "bsc", currency: "USDT", amount: "7.000001", micro: 7_000_001n },
      { chain: "polygon", currency: "USDT", amount: "20.5", micro: 20_500_000n },
    ] as const;
    const coldBefore = await Promise.all(
      wanted.map((w) => balanceOf(w.chain, tokenOf(w.chain, w.currency), cold)),
    );
    const orders: ((typeof wanted)[number] & { id: string; address: string })[] = [];
    for (const w of wanted) {
      const order = await shop.createPayment({
        external_id: `done-when-${w.chain}`,
        amount: w.amount,
        currency: w.currency,
        chain: w.chain,
        callback_url: hooksUrl,
      });
      expect(order).toMatchObject({ chain: w.chain, currency: w.currency, status: "pending" });
      orders.push({ ...w, id: order.id, address: order.address });
    }
    for (const o of orders) {
      const p = provider(o.chain);
      const token = new Contract(
        tokenOf(o.chain, o.currency),
        ["function transfer(address,uint256) returns (bool)"],
        payer.connect(p),
      );
      await token.getFunction("transfer")(o.address, unitsOf(o.chain, o.micro));
      p.destroy();
    }

    mark("orders paid");
    // ---- Each order confirmed, its webhook at the receiver.
    const confirmed = (id: string) =>
      events.find((e) => e.event.event === "payment.confirmed" && e.event.order_id === id);
    await poll("every order's payment.confirmed webhook", () => orders.every((o) => confirmed(o.id)), {
      timeoutMs: 40_000,
      intervalMs: 250,
      describe: async () => ({
        orders: await Promise.all(orders.map(async (o) => (await shop.getPayment(o.id)).status)),
        events: events.map((e) => e.event.event),
        outputs: outputs(),
      }),
    });
    for (const o of orders) {
      expect(confirmed(o.id)?.event).toMatchObject({ chain: o.chain, amount_received: decimal(o.micro) });
    }

    mark("confirmed");
    // ---- The sweeps: the cold wallet grows by exactly what was paid, the order addresses are empty.
    const swept = async () =>
      Promise.all(
        orders.map(async (o, i) => {
          // Both read at one block, so a sweep landing between the reads is not half seen.
          const block = Number(BigInt(await nets[o.chain].rpc<string>("eth_blockNumber")));
          const token = tokenOf(o.chain, o.currency);
          return {
            chain: o.chain,
            grew: (await balanceOf(o.chain, token, cold, block)) - (coldBefore[i] as bigint),
            left: await balanceOf(o.chain, token, o.address, block),
          };
        }),
      );
    const sweeps = await poll("every order's tokens swept to the cold wallet", swept, {
      until: (rows) => rows.every((r) => r.left === 0n),
      timeoutMs: 40_000,
      intervalMs: 250,
      describe: outputs,
    });
    expect(sweeps).toEqual(
      orders.map((o) => ({ chain: o.chain, grew: unitsOf(o.chain, o.micro), left: 0n })),
    );
    // 18-decimal exact on bsc: 7.000001 USDT is 7000001 × 10^12 units, to the last one.
    expect(sweeps[1]?.grew).toBe(7_000_001_000_000_000_000n);

    mark("swept");
    // ---- A refund to the payer's Polygon address, a payout on Arbitrum: both wait for approval.
    const polygonOrder = orders[2] as (typeof orders)[number];
    const payerPolygonBefore = await balanceOf("polygon", tokenOf("polygon"), payer.address);
    const nonces = {
      polygon: await nonceOf("polygon", hot.address),
      arbitrum: await nonceOf("arbitrum", hot.address),
    };
    const refund = await shop.createRefund(polygonOrder.id, {
      amount: "3.000001",
      address: payer.address,
      reason: "returned goods",
      callback_url: hooksUrl,
    });
    const payout = await shop.createPayout({
      external_id: "done-when-payout",
      amount: "5.432101",
      address: payee,
      chain: "arbitrum",
      currency: "USDT",
      callback_url: hooksUrl,
    });
    expect(refund).toMatchObject({ status: "pending_approval", chain: "polygon", currency: "USDT" });
    expect(payout).toMatchObject({ status: "pending_approval", chain: "arbitrum", currency: "USDT" });

    // Alice issued the merchant's key: four eyes refuse her, with a valid code, and change nothing.
    for (const id of [refund.id, payout.id]) {
      const refused = await admin(alice.cookie, "POST", `/payouts/${id}/approve`, {
        totp_code: nextCode(alice),
      });
      expect(refused.status, JSON.stringify(refused.json)).toBe(403);
      expect(refused.json.code).toBe("FOUR_EYES_REQUIRED");
      expect((await shop.getPayout(id)).status).toBe("pending_approval");
    }

    // Blocks held on Polygon and Arbitrum: what Bob's approval sends stays in flight.
    await hold("polygon", "arbitrum");
    for (const id of [refund.id, payout.id]) {
      const approved = await admin(bob.cookie, "POST", `/payouts/${id}/approve`, {
        totp_code: nextCode(bob),
      });
      expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    }
    const inFlight = async () =>
      Promise.all(
        [
          { chain: "polygon" as const, id: refund.id },
          { chain: "arbitrum" as const, id: payout.id },
        ].map(async ({ chain, id }) => {
          const p = await shop.getPayout(id);
          const tx = p.tx_hash
            ? await nets[chain].rpc<unknown>("eth_getTransactionByHash", [p.tx_hash])
            : null;
          return { chain, status: p.status, tx_hash: p.tx_hash, atNode: tx !== null };
        }),
      );
    const sent = await poll("the refund and the payout sent, their transactions at the nodes", inFlight, {
      until: (rows) => rows.every((r) => r.status === "sending" && r.atNode),
      timeoutMs: 30_000,
      intervalMs: 200,
      describe: outputs,
    });

    mark("in flight");
    // ---- The worker SIGKILLed with both in flight, then restarted.
    worker.child.kill("SIGKILL");
    await worker.exited;
    for (const r of sent) expect(await receipt(r.chain, r.tx_hash as string)).toBeNull();
    worker = await startWorker();

    // Polygon goes on; Arbitrum takes the payout into one block, which a reorganisation then drops
    // once the restarted worker has seen it included (not final: final is 4 blocks deep).
    held.delete("polygon");
    const payoutHash = sent[1]?.tx_hash as string;
    await nets.arbitrum.mine(1);
    const included = await receipt("arbitrum", payoutHash);
    expect(included?.status).toBe("0x1");
    expect(await balanceOf("arbitrum", tokenOf("arbitrum"), payee)).toBe(5_432_101n);
    // When to reorganise is the one thing read from the database: the outbox's record of the
    // inclusion. The sender leaves a payout alone while its transaction is included and not final
    // (payout-store.ts's claim rule), so for three seconds after the record, several outbox passes
    // and sender rounds, the payout must stay `sending`: completion on inclusion would show here.
    const db = new pg.Pool({ connectionString: dbUrl, max: 1 });
    try {
      const look = async () =>
        (
          await db.query<{ state: string; status: string }>(
            `SELECT t.state, p.status FROM payouts p
               JOIN evm_transactions t ON t.chain = 'arbitrum' AND t.tx_hash = p.tx_hash
              WHERE p.id = $1`,
            [payout.id],
          )
        ).rows[0];
      await poll("the restarted worker's outbox to record the payout included", look, {
        until: (row) => row?.state === "included",
        timeoutMs: 30_000,
        intervalMs: 100,
        describe: outputs,
      });
      const watchUntil = Date.now() + 3_000;
      while (Date.now() < watchUntil) {
        expect(await look()).toEqual({ state: "included", status: "sending" });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await db.end();
    }
    mark("included seen");
    expect((await shop.getPayout(payout.id)).status).toBe("sending");
    await nets.arbitrum.rpc("anvil_reorg", [1, []]);
    expect(await receipt("arbitrum", payoutHash)).toBeNull();
    expect(await balanceOf("arbitrum", tokenOf("arbitrum"), payee)).toBe(0n);
    held.delete("arbitrum");

    // ---- Both complete, each paid exactly once.
    const done = await poll(
      "the refund and the payout completed",
      async () => Promise.all([shop.getPayout(refund.id), shop.getPayout(payout.id)]),
      {
        until: (rows) => rows.every((r) => r.status === "completed"),
        timeoutMs: 40_000,
        intervalMs: 250,
        describe: outputs,
      },
    );
    mark("completed");
    // The same signed bytes as before the kill and the reorganisation: the same hash.
    expect(done.map((p) => p.tx_hash)).toEqual(sent.map((r) => r.tx_hash));

    const refundLogs = await transfersTo("polygon", tokenOf("polygon"), payer.address);
    const fromHot = refundLogs.filter((l) => l.from === hot.address.toLowerCase());
    expect(fromHot).toEqual([{ from: hot.address.toLowerCase(), units: 3_000_001n, hash: sent[0]?.tx_hash }]);
    const payoutLogs = await transfersTo("arbitrum", tokenOf("arbitrum"), payee);
    expect(payoutLogs).toEqual([{ from: hot.address.toLowerCase(), units: 5_432_101n, hash: payoutHash }]);
    expect(await nonceOf("polygon", hot.address)).toBe(nonces.polygon + 1);
    expect(await nonceOf("arbitrum", hot.address)).toBe(nonces.arbitrum + 1);
    expect(await balanceOf("polygon", tokenOf("polygon"), payer.address)).toBe(
      payerPolygonBefore + 3_000_001n,
    );
    expect(await balanceOf("arbitrum", tokenOf("arbitrum"), payee)).toBe(5_432_101n);

    // The completion webhooks, each event once.
    const completion = await poll(
      "the refund.completed and payout.completed webhooks",
      () => [
        events.filter((e) => e.event.event === "refund.completed" && e.event.payout_id === refund.id),
        events.filter((e) => e.event.event === "payout.completed" && e.event.payout_id === payout.id),
      ],
      {
        until: (lists) => lists.every((l) => l.length > 0),
        timeoutMs: 20_000,
        intervalMs: 250,
        describe: outputs,
      },
    );
    expect(completion.map((l) => l.length)).toEqual([1, 1]);
    expect(completion[0]?.[0]?.event).toMatchObject({
      chain: "polygon",
      amount: "3.000001",
      tx_hash: sent[0]?.tx_hash,
    });
    expect(completion[1]?.[0]?.event).toMatchObject({
      chain: "arbitrum",
      amount: "5.432101",
      tx_hash: payoutHash,
    });

    // The merchant's balances: USDT from bsc and polygon less the refund and the payout; USDC from ethereum.
    const me = (await (
      await fetch(`${apiUrl}/api/v1/merchant/me`, { headers: { "x-api-key": apiKey } })
    ).json()) as {
      balances: Record<string, { available: string; reserved: string }>;
    };
    expect(me.balances).toMatchObject({
      USDT: { available: "19.067899", reserved: "0.000000" },
      USDC: { available: "12.345678", reserved: "0.000000" },
    });

    mark("webhooks");
    // ---- check-ledger, as the operator runs it.
    const ledger = await run(process.execPath, ["--import", "tsx", "src/main.ts", "check-ledger"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env({}) },
      timeout: 60_000,
    }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? -1,
        out: `${e.stdout ?? ""}${e.stderr ?? ""}`,
      }),
    );
    expect(ledger, ledger.out).toMatchObject({ code: 0 });
    expect(ledger.out).toMatch(/^ledger differences: 0 /m);
    const lines = ledger.out.split("\n");
    const line = (chain: Chain) => lines.find((l) => l.startsWith(`chain ${chain}:`));
    expect(line("ethereum"), ledger.out).toContain(
      "USDC received 12.345678, reserved 0.000000, paid out 0.000000",
    );
    expect(line("bsc"), ledger.out).toContain("USDT received 7.000001, reserved 0.000000, paid out 0.000000");
    expect(line("polygon"), ledger.out).toContain(
      "USDT received 20.500000, reserved 0.000000, paid out 3.000001",
    );
    expect(line("arbitrum"), ledger.out).toContain(
      "USDT received 0.000000, reserved 0.000000, paid out 5.432101",
    );
    mark("check-ledger");
    expect(refusedHooks).toEqual([]);
    // CHAINS leaves TRON out: no process ran a TRON devnet of its own in the shared DATA_DIR.
    expect(readdirSync(dataDir)).not.toContain("devnet-state.json");
    // ...and none of them asked a TRON node for anything (the metrics' TRON hot wallet read).
    for (const p of processes) expect(p.output()).not.toContain("TRON_NODE_URL is not set");
  }, 180_000);
});
