/**
 * The chaos run (issues 39 and 40): the service's worker role as real `stablegate serve --role
 * worker` processes, SIGKILLed and restarted at seeded moments, beside one `--role api` process, on
 * PostgreSQL, against the TRON devnet and two EVM chains on Anvil (ethereum with 6-decimal USDT and
 * USDC; bsc whose USDT is the 18-decimal token), while a seeded mix of work runs through the merchant
 * API and the chains: orders paid exactly, under and over; payments on the wrong chain or token
 * (strays); static deposits; refunds and payouts; a reorganisation of non-final EVM blocks. Each kind
 * of work is one entry of MIX.
 *
 * At the end, with the workers settled, it checks the books against the chains: `stablegate
 * check-ledger` passes; every order's outcome and amount match what the chain kept; every webhook
 * event is delivered; each payout recipient received exactly its amount once (TRC20 transfers read
 * block by block; on EVM the hot wallet's Transfer logs); every TRON address we were paid at was
 * swept exactly once, and the cold wallet holds exactly what was paid there; every EVM order, stray
 * and static address sent the EVM cold wallet exactly what it received, per token, and holds none. A failure throws naming the seed and the state that disagreed.
 *
 * Used by test/chaos/chaos.test.ts (CI-sized) and `npm run chaos` (scripts/chaos.ts: --duration, --seed).
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { Wallet } from "ethers";
import { TronWeb } from "tronweb";
import { startDevnet, startEvmDevnet, type Devnet, type EvmDevnet } from "@stablegate/devnet";
import { devnetEnv, TEST_ADMIN_PASSWORD, TEST_MNEMONIC, TEST_SECRETS } from "../helpers/config.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { addressTopic, evmChainEnv, sendToken, TRANSFER_TOPIC } from "../helpers/evm-devnet.js";
import { createPgCluster, freePort, type PgCluster } from "../helpers/pg-cluster.js";
import { poll } from "../helpers/poll.js";
import { startServiceProcess, type ServiceProcess } from "../helpers/service-process.js";
import { usdtBalance } from "../helpers/usdt.js";
import { startReceiver, type Receiver } from "../webhooks/fixtures.js";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const USDT = 1_000_000n;
const WEBHOOK_SECRET = "whsec_chaos_run_0123456789abcdef";
const TRC20_TRANSFER = TRANSFER_TOPIC.slice(2);

export interface ChaosOptions {
  /** How long the mix and the kills run before the settling; the checks come after. */
  durationMs: number;
  seed: number;
  /** Worker processes (default 2). */
  workers?: number;
  /** How long the settling may take before the run fails naming what was still moving. */
  settleMs?: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  seed: number;
  kills: number;
  reorgs: number;
  counts: Record<string, number>;
  /** Webhook requests beyond the first per event: re-sends after a kill (delivery is at least once). */
  webhookRedeliveries: number;
  checks: string[];
}

/** mulberry32: a small seeded generator, so a seed replays the same mix and kill schedule. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type EvmChainName = "ethereum" | "bsc";
type ChainName = "tron" | EvmChainName;

interface ExpectedOrder {
  id: string;
  chain: ChainName;
  currency: "USDT" | "USDC";
  address: string;
  amount: bigint;
  /** Micro-units paid and kept by the chain. */
  paid: bigint;
  /** Payments in the token's own units (EVM) with their transaction hashes. */
  payments: { hash: string; units: bigint }[];
}

interface ExpectedStray {
  chain: EvmChainName;
  address: string;
  units: bigint;
  hash: string;
}

interface ExpectedPayout {
  id: string;
  kind: "payout" | "refund";
  chain: ChainName;
  currency: "USDT" | "USDC";
  to: string;
  amount: bigint;
  /** A refund's order. */
  order?: string;
}

interface ExpectedDeposit {
  id: string;
  chain: ChainName;
  address: string;
  paid: bigint;
  payments: number;
}

/** What the run did; the end checks compare the service's state and the chains with it. */
interface Ledger {
  orders: ExpectedOrder[];
  strays: ExpectedStray[];
  payouts: ExpectedPayout[];
  /** Refunds and payouts the API refused, with the address they named: it must receive nothing. */
  refused: { kind: string; chain: ChainName; currency: "USDT" | "USDC"; code: string; to: string }[];
  deposits: ExpectedDeposit[];
}

interface Harness {
  rng: () => number;
  pick<T>(items: readonly T[]): T;
  tron: Devnet;
  evm: Record<EvmChainName, EvmDevnet>;
  /** The EVM hot wallet's address (the same key on every EVM chain). */
  evmHot: string;
  receiver: Receiver;
  merchant(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }>;
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  ledger: Ledger;
  counts: Record<string, number>;
  next(prefix: string): string;
  /** Pauses the harness's EVM block producer while `fn` runs (the reorg entry owns the blocks). */
  withMinerPaused<T>(fn: () => Promise<T>): Promise<T>;
  reorgs: number;
  log(line: string): void;
}

/** An EVM token's units for `micro` micro-units (18-decimal tokens scale by 10^12). */
function evmUnits(chain: EvmChainName, micro: bigint): bigint {
  return chain === "bsc" ? micro * 10n ** 12n : micro;
}

function evmToken(h: Harness, chain: EvmChainName, currency: "USDT" | "USDC"): string {
  const d = h.evm[chain];
  if (chain === "bsc") return d.usdt18Contract;
  return currency === "USDT" ? d.usdtContract : d.usdcContract;
}

/** A seeded amount of 1.000000 to 9.999999 with up to six decimals. */
function amountOf(h: Harness): bigint {
  return USDT + BigInt(Math.floor(h.rng() * 9_000_000));
}

function decimal(micro: bigint): string {
  const s = micro.toString().padStart(7, "0");
  return `${s.slice(0, -6)}.${s.slice(-6)}`;
}

/** A 6-decimal string of the API as micro-units (never through a float). */
function microOf(text: string): bigint {
  const [whole = "0", fraction = ""] = text.split(".");
  return BigInt(whole) * USDT + BigInt(fraction.padEnd(6, "0").slice(0, 6));
}

/** Exact, under or over: what the payer sends for an order of `amount`. */
function payment(h: Harness, amount: bigint): bigint {
  const r = h.rng();
  if (r < 0.5) return amount;
  // Up to a tenth off or over: an underpaid order's address still holds more than SWEEP_MIN_USDT.
  const delta = 1n + BigInt(Math.floor(h.rng() * Number(amount / 10n)));
  return r < 0.75 ? amount - delta : amount + delta;
}

async function createOrder(h: Harness, chain: ChainName, currency: "USDT" | "USDC") {
  const amount = amountOf(h);
  const r = await h.merchant("POST", "/api/v1/payments", {
    external_id: h.next("order"),
    amount: decimal(amount),
    currency,
    chain,
    callback_url: h.receiver.url,
  });
  if (r.status !== 201) throw new Error(`order creation: ${r.status} ${JSON.stringify(r.json)}`);
  const order: ExpectedOrder = {
    id: r.json.id as string,
    chain,
    currency,
    address: r.json.address as string,
    amount,
    paid: 0n,
    payments: [],
  };
  h.ledger.orders.push(order);
  return order;
}

async function payTron(h: Harness, to: string, micro: bigint): Promise<void> {
  const res = await fetch(`${h.tron.url}/devnet/fund`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address: to, usdt_units: micro.toString() }),
  });
  if (res.status !== 200) throw new Error(`TRON payment to ${to}: ${res.status} ${await res.text()}`);
}

async function payEvm(h: Harness, order: ExpectedOrder, micro: bigint): Promise<string> {
  const chain = order.chain as EvmChainName;
  const units = evmUnits(chain, micro);
  const hash = await sendToken(h.evm[chain], evmToken(h, chain, order.currency), order.address, units);
  order.payments.push({ hash, units });
  order.paid += micro;
  return hash;
}

/** One kind of work: a weight in the seeded draw and what it does. */
interface MixEntry {
  name: string;
  weight: number;
  run(h: Harness): Promise<void>;
}

/**
 * The mix, EVM payouts and refunds included (docs/development.md, "The chaos run").
 */
const MIX: MixEntry[] = [
  {
    name: "tron order",
    weight: 4,
    async run(h) {
      const order = await createOrder(h, "tron", "USDT");
      const micro = payment(h, order.amount);
      await payTron(h, order.address, micro);
      order.paid += micro;
    },
  },
  {
    name: "ethereum order",
    weight: 3,
    async run(h) {
      const order = await createOrder(h, "ethereum", h.pick(["USDT", "USDC"] as const));
      await payEvm(h, order, payment(h, order.amount));
    },
  },
  {
    name: "bsc 18-decimal order",
    weight: 2,
    async run(h) {
      const order = await createOrder(h, "bsc", "USDT");
      await payEvm(h, order, payment(h, order.amount));
    },
  },
  {
    // An EVM order's address paid on the other EVM chain, or in the other token: a stray on the
    // chain it was seen on; the order stays as it was (it is paid exactly besides).
    name: "stray",
    weight: 1,
    async run(h) {
      const order = await createOrder(h, "ethereum", "USDT");
      await payEvm(h, order, order.amount);
      const chain = h.pick(["bsc", "ethereum"] as const);
      const micro = amountOf(h);
      const units = evmUnits(chain, micro);
      const token = chain === "bsc" ? h.evm.bsc.usdt18Contract : h.evm.ethereum.usdcContract;
      const hash = await sendToken(h.evm[chain], token, order.address, units);
      h.ledger.strays.push({ chain, address: order.address, units, hash });
    },
  },
  {
    name: "static deposit",
    weight: 1,
    async run(h) {
      const tronDeposits = h.ledger.deposits.filter((d) => d.chain === "tron");
      const reuse = tronDeposits.length > 0 && h.rng() < 0.5;
      let deposit = reuse ? h.pick(tronDeposits) : undefined;
      if (!deposit) {
        const r = await h.merchant("POST", "/api/v1/deposit-addresses", {
          customer_ref: h.next("customer"),
          callback_url: h.receiver.url,
        });
        if (r.status !== 201) throw new Error(`deposit address: ${r.status} ${JSON.stringify(r.json)}`);
        deposit = {
          id: r.json.id as string,
          chain: "tron",
          address: r.json.address as string,
          paid: 0n,
          payments: 0,
        };
        h.ledger.deposits.push(deposit);
      }
      const micro = amountOf(h);
      await payTron(h, deposit.address, micro);
      deposit.paid += micro;
      deposit.payments++;
    },
  },
  {
    // A customer's static address on an EVM chain (the one EVM address of its family), paid once
    // or twice on that chain; credited per deposit after finality, then swept on that chain.
    name: "evm static deposit",
    weight: 1,
    async run(h) {
      const chain = h.pick(["ethereum", "bsc"] as const);
      const r = await h.merchant("POST", "/api/v1/deposit-addresses", {
        customer_ref: h.next("evm-customer"),
        chain,
        currency: "USDT",
        callback_url: h.receiver.url,
      });
      if (r.status !== 201) throw new Error(`EVM deposit address: ${r.status} ${JSON.stringify(r.json)}`);
      const deposit: ExpectedDeposit = {
        id: r.json.id as string,
        chain,
        address: r.json.address as string,
        paid: 0n,
        payments: 0,
      };
      h.ledger.deposits.push(deposit);
      const times = 1 + Math.floor(h.rng() * 2);
      for (let i = 0; i < times; i++) {
        const micro = amountOf(h);
        await sendToken(h.evm[chain], evmToken(h, chain, "USDT"), deposit.address, evmUnits(chain, micro));
        deposit.paid += micro;
        deposit.payments++;
      }
    },
  },
  {
    name: "refund",
    weight: 1,
    async run(h) {
      const candidates = h.ledger.orders.filter((o) => o.chain === "tron" && o.paid > 0n);
      if (candidates.length === 0) return;
      const order = h.pick(candidates);
      const current = await h.merchant("GET", `/api/v1/payments/${order.id}`);
      const received = microOf(String(current.json.amount_received ?? "0"));
      if (received === 0n) return;
      const refunded = h.ledger.payouts
        .filter((p) => p.order === order.id)
        .reduce((s, p) => s + p.amount, 0n);
      const amount = (received - refunded) / 2n;
      if (amount < 100_000n) return;
      const to = (await TronWeb.createAccount()).address.base58 as string;
      const r = await h.merchant("POST", `/api/v1/payments/${order.id}/refunds`, {
        amount: decimal(amount),
        address: to,
        callback_url: h.receiver.url,
      });
      if (r.status === 201) {
        h.ledger.payouts.push({
          id: r.json.id as string,
          kind: "refund",
          chain: "tron",
          currency: "USDT",
          to,
          amount,
          order: order.id,
        });
      } else if (r.status >= 500 || typeof r.json.code !== "string") {
        throw new Error(`refund: ${r.status} ${JSON.stringify(r.json)}`);
      } else
        h.ledger.refused.push({ kind: "refund", chain: "tron", currency: "USDT", code: r.json.code, to });
    },
  },
  {
    name: "payout",
    weight: 1,
    async run(h) {
      const to = (await TronWeb.createAccount()).address.base58 as string;
      const amount = amountOf(h) / 2n;
      const r = await h.merchant("POST", "/api/v1/payouts", {
        external_id: h.next("payout"),
        amount: decimal(amount),
        address: to,
        callback_url: h.receiver.url,
      });
      if (r.status === 201)
        h.ledger.payouts.push({
          id: r.json.id as string,
          kind: "payout",
          chain: "tron",
          currency: "USDT",
          to,
          amount,
        });
      else if (r.status >= 500 || typeof r.json.code !== "string") {
        throw new Error(`payout: ${r.status} ${JSON.stringify(r.json)}`);
      } else
        h.ledger.refused.push({ kind: "payout", chain: "tron", currency: "USDT", code: r.json.code, to });
    },
  },
  {
    // An auto-approved payout from the EVM hot wallet: USDT or USDC on ethereum, or bsc's 18-decimal USDT.
    name: "evm payout",
    weight: 1,
    async run(h) {
      const chain = h.pick(["ethereum", "bsc"] as const);
      const currency = chain === "bsc" ? "USDT" : h.pick(["USDT", "USDC"] as const);
      const to = Wallet.createRandom().address;
      const amount = amountOf(h) / 2n;
      const r = await h.merchant("POST", "/api/v1/payouts", {
        external_id: h.next("evm-payout"),
        amount: decimal(amount),
        address: to,
        chain,
        currency,
        callback_url: h.receiver.url,
      });
      if (r.status === 201)
        h.ledger.payouts.push({ id: r.json.id as string, kind: "payout", chain, currency, to, amount });
      else if (r.status >= 500 || typeof r.json.code !== "string") {
        throw new Error(`EVM payout: ${r.status} ${JSON.stringify(r.json)}`);
      } else h.ledger.refused.push({ kind: "payout", chain, currency, code: r.json.code, to });
    },
  },
  {
    // A refund of a paid EVM order, on the order's chain in its token, from the EVM hot wallet.
    name: "evm refund",
    weight: 1,
    async run(h) {
      const candidates = h.ledger.orders.filter((o) => o.chain !== "tron" && o.paid > 0n);
      if (candidates.length === 0) return;
      const order = h.pick(candidates);
      const current = await h.merchant("GET", `/api/v1/payments/${order.id}`);
      const received = microOf(String(current.json.amount_received ?? "0"));
      if (received === 0n) return;
      const refunded = h.ledger.payouts
        .filter((p) => p.order === order.id)
        .reduce((s, p) => s + p.amount, 0n);
      const amount = (received - refunded) / 2n;
      if (amount < 100_000n) return;
      const to = Wallet.createRandom().address;
      const r = await h.merchant("POST", `/api/v1/payments/${order.id}/refunds`, {
        amount: decimal(amount),
        address: to,
        callback_url: h.receiver.url,
      });
      const { chain, currency } = order;
      if (r.status === 201) {
        h.ledger.payouts.push({
          id: r.json.id as string,
          kind: "refund",
          chain,
          currency,
          to,
          amount,
          order: order.id,
        });
      } else if (r.status >= 500 || typeof r.json.code !== "string") {
        throw new Error(`EVM refund: ${r.status} ${JSON.stringify(r.json)}`);
      } else h.ledger.refused.push({ kind: "refund", chain, currency, code: r.json.code, to });
    },
  },
  {
    // A payment lands in a block, the scanner may see it, and a reorganisation of that non-final
    // block removes it; the payer pays again, and only the second payment may count.
    name: "reorg",
    weight: 1,
    async run(h) {
      const chain = h.pick(["ethereum", "bsc"] as const);
      const order = await createOrder(h, chain, "USDT");
      const d = h.evm[chain];
      await h.withMinerPaused(async () => {
        await d.mine(1); // what earlier entries left pending goes into a block of its own
        const micro = payment(h, order.amount);
        const hash = await payEvm(h, order, micro);
        await d.mine(1);
        await poll(
          "the reorg entry's payment to be detected",
          async () =>
            (await h.query("SELECT 1 FROM transfers WHERE tx_hash = $1", [hash.toLowerCase()])).length > 0 ||
            (await h.query("SELECT 1 FROM transfers WHERE lower(tx_hash) = lower($1)", [hash])).length > 0,
          { timeoutMs: 3_000, intervalMs: 100 },
        ).catch(() => undefined); // a killed scanner may not see it before the reorg: both are fine
        await d.rpc("anvil_reorg", [1, []]);
        const gone = await d.rpc<unknown>("eth_getTransactionReceipt", [hash]);
        if (gone) throw new Error(`the reorg kept ${hash}`);
        order.payments = order.payments.filter((p) => p.hash !== hash);
        order.paid -= micro;
        h.reorgs++;
      });
      await payEvm(h, order, payment(h, order.amount));
    },
  },
];

function pickEntry(h: Harness): MixEntry {
  const total = MIX.reduce((s, e) => s + e.weight, 0);
  let r = h.rng() * total;
  for (const entry of MIX) {
    r -= entry.weight;
    if (r < 0) return entry;
  }
  return MIX[MIX.length - 1] as MixEntry;
}

// ---------------------------------------------------------------------------------------------

interface TronTransfer {
  txid: string;
  from: string;
  to: string;
  amount: bigint;
}

/** Every successful USDT transfer on the TRON devnet, read block by block from its HTTP API. */
async function tronTransfers(devnet: Devnet): Promise<TronTransfer[]> {
  const head = (await (await fetch(`${devnet.url}/wallet/getnowblock`, { method: "POST" })).json()) as {
    block_header: { raw_data: { number: number } };
  };
  const usdt = TronWeb.address.toHex(devnet.usdtContract).toLowerCase().slice(2);
  const out: TronTransfer[] = [];
  for (let n = 0; n <= head.block_header.raw_data.number; n++) {
    const res = await fetch(`${devnet.url}/wallet/gettransactioninfobyblocknum`, {
      method: "POST",
      body: JSON.stringify({ num: n }),
    });
    const infos = (await res.json()) as {
      id: string;
      receipt?: { result?: string };
      log?: { address: string; topics: string[]; data: string }[];
    }[];
    for (const info of Array.isArray(infos) ? infos : []) {
      if (info.receipt?.result !== "SUCCESS") continue;
      for (const log of info.log ?? []) {
        if (log.address !== usdt || log.topics[0] !== TRC20_TRANSFER) continue;
        out.push({
          txid: info.id,
          from: TronWeb.address.fromHex("41" + (log.topics[1] as string).slice(24)) as string,
          to: TronWeb.address.fromHex("41" + (log.topics[2] as string).slice(24)) as string,
          amount: BigInt("0x" + log.data),
        });
      }
    }
  }
  return out;
}

/** The sum of `token` Transfer logs to `address` on an EVM devnet, over its whole chain. */
async function evmReceived(devnet: EvmDevnet, token: string, address: string): Promise<bigint> {
  const logs = await devnet.rpc<{ data: string }[]>("eth_getLogs", [
    {
      fromBlock: "0x0",
      toBlock: "latest",
      address: token,
      topics: [TRANSFER_TOPIC, null, addressTopic(address)],
    },
  ]);
  return logs.reduce((s, l) => s + BigInt(l.data), 0n);
}

/** `token`'s balanceOf(`holder`) on an EVM devnet, in the token's own units. */
async function evmBalance(devnet: EvmDevnet, token: string, holder: string): Promise<bigint> {
  const word = holder.toLowerCase().replace(/^0x/, "").padStart(64, "0");
  return BigInt(await devnet.rpc<string>("eth_call", [{ to: token, data: "0x70a08231" + word }, "latest"]));
}

/** Every `token` Transfer log on an EVM devnet from or to an address, over its whole chain. */
async function evmTransfers(
  devnet: EvmDevnet,
  token: string,
  filter: { from?: string; to?: string },
): Promise<{ hash: string; from: string; to: string; units: bigint }[]> {
  const logs = await devnet.rpc<{ data: string; topics: string[]; transactionHash: string }[]>(
    "eth_getLogs",
    [
      {
        fromBlock: "0x0",
        toBlock: "latest",
        address: token,
        topics: [
          TRANSFER_TOPIC,
          filter.from ? addressTopic(filter.from) : null,
          filter.to ? addressTopic(filter.to) : null,
        ],
      },
    ],
  );
  return logs.map((l) => ({
    hash: l.transactionHash,
    from: "0x" + (l.topics[1] as string).slice(26),
    to: "0x" + (l.topics[2] as string).slice(26),
    units: BigInt(l.data),
  }));
}

/** Every (chain, address, token) of ours the run paid on an EVM chain: orders, strays, static deposits. */
function evmPaidAddresses(h: Harness): { chain: EvmChainName; address: string; token: string }[] {
  const seen = new Map<string, { chain: EvmChainName; address: string; token: string }>();
  const add = (chain: ChainName, address: string) => {
    if (chain === "tron") return;
    const tokens =
      chain === "bsc"
        ? [h.evm.bsc.usdt18Contract]
        : [h.evm.ethereum.usdtContract, h.evm.ethereum.usdcContract];
    for (const token of tokens)
      seen.set(`${chain}:${token}:${address.toLowerCase()}`, { chain, address, token });
  };
  for (const o of h.ledger.orders) add(o.chain, o.address);
  for (const s of h.ledger.strays) add(s.chain, s.address);
  for (const d of h.ledger.deposits) add(d.chain, d.address);
  return [...seen.values()];
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { seed, durationMs } = options;
  const workerCount = options.workers ?? 2;
  const settleMs = options.settleMs ?? 120_000;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const rng = seededRandom(seed);
  log(`chaos run: seed ${seed}, ${durationMs} ms of mix and kills, ${workerCount} workers`);

  let cluster: PgCluster | undefined;
  let testDb: TestDatabase | undefined;
  let dbUrl: string;
  const cleanups: (() => Promise<unknown>)[] = [];
  const processes: ServiceProcess[] = [];
  const workers: (ServiceProcess | undefined)[] = [];
  let minerTimer: NodeJS.Timeout | undefined;
  // Set when the run ends (a failure included): the kill schedule restarts no worker after it.
  let stopped = false;
  let pool: pg.Pool | undefined;
  const outputs = () =>
    processes
      .slice(-6)
      .map((p) => `--- ${p.role} (alive ${p.alive()}) ---\n${p.output().slice(-3000)}`)
      .join("\n");

  try {
    if (process.env.TEST_DATABASE_URL) {
      testDb = await createTestDatabase({ poolSize: 2 });
      dbUrl = testDb.url as string;
      cleanups.push(() => (testDb as TestDatabase).drop());
    } else {
      cluster = await createPgCluster({ databases: ["stablegate"] });
      dbUrl = cluster.url("stablegate");
      cleanups.push(() => (cluster as PgCluster).destroy());
    }
    pool = new pg.Pool({ connectionString: dbUrl, max: 2 });
    const db = pool;
    cleanups.push(() => db.end());

    const tron = await startDevnet({ blockTimeMs: 300, solidifyAfter: 2, quiet: true });
    cleanups.push(() => tron.close());
    const ethereum = await startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 4, chainId: 31337 });
    cleanups.push(() => ethereum.close());
    const bsc = await startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 4, chainId: 56 });
    cleanups.push(() => bsc.close());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());

    const hot = await TronWeb.createAccount();
    const cold = (await TronWeb.createAccount()).address.base58 as string;
    const fundRes = await fetch(`${tron.url}/devnet/fund`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ address: hot.address.base58, trx: "20000", usdt: "1000", solidify: true }),
    });
    if (fundRes.status !== 200) throw new Error(`funding the hot wallet: ${await fundRes.text()}`);
    // The EVM hot wallet (one key, both chains): native coin for payouts and sweep top-ups, and a
    // float of every token the mix pays out in. One EVM cold wallet receives both chains' sweeps.
    const evmHot = Wallet.createRandom();
    const evmCold = Wallet.createRandom().address;
    for (const d of [ethereum, bsc]) {
      await d.rpc("anvil_setBalance", [evmHot.address, "0x" + (1000n * 10n ** 18n).toString(16)]);
      const tokens = d === bsc ? [d.usdt18Contract] : [d.usdtContract, d.usdcContract];
      for (const token of tokens)
        await sendToken(d, token, evmHot.address, (d === bsc ? 10n ** 12n : 1n) * 1_000n * USDT);
      await d.mine(1);
    }

    const env = (extra: Record<string, string>): Record<string, string> => ({
      NODE_ENV: "development",
      LOG_LEVEL: "warn",
      DATABASE_URL: dbUrl,
      ...TEST_SECRETS,
      ...devnetEnv(tron),
      CHAINS: "tron,ethereum,bsc",
      ...evmChainEnv("ethereum", ethereum),
      ...evmChainEnv("bsc", bsc, bsc.usdt18Contract),
      CONFIRMATIONS: "3",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      HOST: "127.0.0.1",
      DATA_DIR: mkdtempSync(join(tmpdir(), "sg-chaos-")),
      WALLET_MNEMONIC: TEST_MNEMONIC,
      HOT_WALLET_ADDRESS: hot.address.base58,
      COLD_WALLET_ADDRESS: cold,
      EVM_COLD_WALLET_ADDRESS: evmCold,
      SWEEP_ENABLED: "true",
      SWEEP_MIN_USDT: "0.5",
      DEPOSIT_MIN_USDT: "1",
      PAYOUT_AUTO_APPROVE_USDT: "1000",
      POOL_MIN_FREE: "10",
      // A killed worker's claimed sweeps and payouts go to the others after 10 s, not minutes.
      WORKER_LEASE_SECONDS: "10",
      ...extra,
    });
    const apiPort = await freePort();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const api = startServiceProcess("api", env({ PORT: String(apiPort) }));
    processes.push(api);
    const workerEnv = async () =>
      env({
        PORT: String(await freePort()),
        HOT_WALLET_PRIVATE_KEY: hot.privateKey,
        EVM_HOT_WALLET_PRIVATE_KEY: evmHot.privateKey,
      });
    const startWorker = async (i: number) => {
      const w = startServiceProcess("worker", await workerEnv());
      w.role = `worker ${i}`;
      processes.push(w);
      workers[i] = w;
    };
    await poll(
      "the api to answer",
      async () => (await fetch(`${apiUrl}/api/v1/health/live`).catch(() => null))?.status === 200,
      { timeoutMs: 120_000, describe: outputs, intervalMs: 250 },
    );
    for (let i = 0; i < workerCount; i++) await startWorker(i);

    const login = await fetch(`${apiUrl}/api/v1/admin/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    if (!cookie) throw new Error(`admin login: ${login.status} ${await login.text()}`);
    const created = await fetch(`${apiUrl}/api/v1/admin/merchants`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ name: "Chaos shop", webhook_secret: WEBHOOK_SECRET }),
    });
    const apiKey = ((await created.json()) as { api_key: string }).api_key;

    let counter = 0;
    let minerPaused = 0;
    /** The block producer's mining in flight, if any: a paused producer's last blocks land first. */
    let mining: Promise<unknown> | undefined;
    const h: Harness = {
      rng,
      pick: <T>(items: readonly T[]) => items[Math.floor(rng() * items.length)] as T,
      tron,
      evm: { ethereum, bsc },
      evmHot: evmHot.address,
      receiver,
      async merchant(method, path, body) {
        const response = await fetch(`${apiUrl}${path}`, {
          method,
          headers: {
            "x-api-key": apiKey,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(20_000),
        });
        return { status: response.status, json: (await response.json()) as Record<string, unknown> };
      },
      async query<T>(text: string, values: unknown[] = []) {
        return (await db.query(text, values)).rows as T[];
      },
      ledger: { orders: [], strays: [], payouts: [], refused: [], deposits: [] },
      counts: {},
      next: (prefix) => `${prefix}-${seed}-${++counter}`,
      async withMinerPaused(fn) {
        minerPaused++;
        try {
          await mining;
          return await fn();
        } finally {
          minerPaused--;
        }
      },
      reorgs: 0,
      log,
    };

    // The EVM chains' block producer: a block on each every 300 ms unless the reorg entry holds it.
    minerTimer = setInterval(() => {
      if (minerPaused > 0 || mining) return;
      mining = Promise.all([ethereum.mine(1), bsc.mine(1)])
        .catch(() => undefined)
        .finally(() => (mining = undefined));
    }, 300);

    await poll(
      "every chain's scanner to start (a cursor row each)",
      async () => (await h.query("SELECT name FROM scanner_cursor")).length >= 3,
      {
        timeoutMs: 120_000,
        intervalMs: 250,
        describe: async () =>
          `${JSON.stringify(await h.query("SELECT name FROM scanner_cursor"))}\n${outputs()}`,
      },
    );

    // The kills: a seeded schedule of SIGKILLs and restarts, running beside the mix.
    let kills = 0;
    const endAt = Date.now() + durationMs;
    const killRng = seededRandom(seed ^ 0x5eed);
    const monkey = (async () => {
      while (Date.now() < endAt && !stopped) {
        const pause = 1_500 + Math.floor(killRng() * 3_500);
        await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, endAt - Date.now()))));
        if (Date.now() >= endAt || stopped) break;
        const i = Math.floor(killRng() * workerCount);
        const victim = workers[i];
        const downMs = 200 + Math.floor(killRng() * 1_800);
        if (victim?.alive()) {
          victim.child.kill("SIGKILL");
          await victim.exited;
          kills++;
          log(`  kill ${kills}: worker ${i} (SIGKILL), restart in ${downMs} ms`);
        }
        await new Promise((r) => setTimeout(r, downMs));
        if (!stopped) await startWorker(i);
      }
    })();

    // The mix: one seeded entry at a time until the duration is over.
    while (Date.now() < endAt) {
      const entry = pickEntry(h);
      await entry.run(h);
      h.counts[entry.name] = (h.counts[entry.name] ?? 0) + 1;
    }
    await monkey;
    for (let i = 0; i < workerCount; i++) if (!workers[i]?.alive()) await startWorker(i);
    log(`  mix done: ${JSON.stringify(h.counts)}, ${kills} kills, ${h.reorgs} reorgs; settling`);

    // ---- Settle: every order final and reported, payouts done, sweeps done, webhooks delivered.
    const ledger = h.ledger;
    const state = async () => ({
      orders: await h.query("SELECT status, count(*)::int AS n FROM orders GROUP BY status ORDER BY status"),
      payouts: await h.query(
        "SELECT status, count(*)::int AS n FROM payouts GROUP BY status ORDER BY status",
      ),
      settlements: await h.query(
        "SELECT status, count(*)::int AS n FROM settlements GROUP BY status ORDER BY status",
      ),
      deposits: await h.query(
        "SELECT status, count(*)::int AS n FROM deposits GROUP BY status ORDER BY status",
      ),
      webhooks: await h.query(
        "SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status ORDER BY status",
      ),
      strays: await h.query("SELECT chain, count(*)::int AS n FROM stray_transfers GROUP BY chain"),
    });
    const describe = async () =>
      `seed ${seed}\n${JSON.stringify(await state())}\nunsettled orders: ${JSON.stringify(
        await h.query(
          "SELECT id, chain, status, amount_expected::text, amount_received::text FROM orders WHERE status <> 'completed' LIMIT 10",
        ),
      )}\nunswept: ${JSON.stringify(
        await h.query(
          "SELECT address, status, step, last_error FROM settlements WHERE status <> 'completed' LIMIT 10",
        ),
      )}\n${outputs()}`;
    await poll(
      "the workers to settle",
      async () => {
        const [open] = await h.query<{
          orders: number;
          payouts: number;
          settlements: number;
          hooks: number;
          deposits: number;
          strays: number;
          depositAddresses: number;
        }>(
          `SELECT
             (SELECT count(*)::int FROM orders WHERE status <> 'completed') AS orders,
             (SELECT count(*)::int FROM payouts WHERE status NOT IN ('completed', 'failed', 'rejected', 'cancelled')) AS payouts,
             (SELECT count(*)::int FROM settlements WHERE status IN ('waiting', 'active')) AS settlements,
             (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending') AS hooks,
             (SELECT count(*)::int FROM deposits WHERE status = 'detected') AS deposits,
             (SELECT count(*)::int FROM stray_transfers) AS strays,
             (SELECT count(DISTINCT deposit_address_id)::int FROM deposits) AS "depositAddresses"`,
        );
        const depositsPaid = ledger.deposits.reduce((s, d) => s + Number(d.paid > 0n), 0);
        return (
          open !== undefined &&
          open.orders === 0 &&
          open.payouts === 0 &&
          open.settlements === 0 &&
          open.hooks === 0 &&
          open.deposits === 0 &&
          open.strays >= ledger.strays.length &&
          open.depositAddresses >= depositsPaid
        );
      },
      { timeoutMs: settleMs, intervalMs: 500, describe },
    );
    // Sweeps are queued after completion (a stray's after its finality): wait for every address we
    // were paid at, TRON and EVM, to be empty.
    const evmPaid = evmPaidAddresses(h);
    const tronPaid = [
      ...ledger.orders.filter((o) => o.chain === "tron" && o.paid > 0n).map((o) => o.address),
      ...ledger.deposits.filter((d) => d.chain === "tron" && d.paid > 0n).map((d) => d.address),
    ];
    const unswept = async () => {
      const left: { address: string; balance: string }[] = [];
      for (const address of tronPaid) {
        const balance = await usdtBalance(tron, address);
        if (balance !== 0n) left.push({ address, balance: decimal(balance) });
      }
      for (const { chain, address, token } of evmPaid) {
        const balance = await evmBalance(h.evm[chain], token, address);
        if (balance !== 0n)
          left.push({ address: `${chain}:${token}:${address}`, balance: balance.toString() });
      }
      return left;
    };
    await poll(
      "every address we were paid at to be swept",
      async () => {
        if ((await unswept()).length > 0) return false;
        const [open] = await h.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM settlements WHERE status IN ('waiting', 'active')",
        );
        return open?.n === 0;
      },
      {
        timeoutMs: settleMs,
        intervalMs: 500,
        describe: async () => `holding tokens: ${JSON.stringify(await unswept())}\n${await describe()}`,
      },
    );
    clearInterval(minerTimer);
    minerTimer = undefined;

    // ---- The checks. Each failure names what disagreed; all are collected, then thrown together.
    const failures: string[] = [];
    const checks: string[] = [];
    const check = (name: string, ok: boolean, detail: () => unknown) => {
      if (ok) checks.push(name);
      else
        failures.push(
          `${name}: ${JSON.stringify(detail(), (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`,
        );
    };

    // 1. check-ledger, as the operator runs it.
    const ledgerRun = await run(process.execPath, ["--import", "tsx", "src/main.ts", "check-ledger"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env({}) },
      timeout: 120_000,
    }).then(
      (r) => ({ ok: true, out: r.stdout }),
      (e: { stdout?: string; stderr?: string; message: string }) => ({
        ok: false,
        out: `${e.stdout}${e.stderr}${e.message}`,
      }),
    );
    check(
      "check-ledger passes",
      ledgerRun.ok && /ledger differences: 0 /.test(ledgerRun.out),
      () => ledgerRun.out,
    );

    // 2. Every order's outcome matches what the chain kept.
    const rows = await h.query<{ id: string; status: string; received: string; chain: string }>(
      "SELECT id::text, status, amount_received::text AS received, chain FROM orders",
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const outcomes = await h.query<{ order_id: string; event: string; n: number }>(
      `SELECT order_id::text, event, count(*)::int AS n FROM webhook_deliveries
        WHERE event IN ('payment.confirmed', 'payment.underpaid', 'payment.overpaid') GROUP BY 1, 2`,
    );
    for (const o of ledger.orders) {
      const row = byId.get(o.id);
      const want =
        o.paid === o.amount
          ? "payment.confirmed"
          : o.paid < o.amount
            ? "payment.underpaid"
            : "payment.overpaid";
      const got = outcomes.filter((x) => x.order_id === o.id);
      check(
        `order ${o.id} (${o.chain} ${o.currency}) ${want.slice(8)} at ${decimal(o.paid)}`,
        row?.status === "completed" &&
          row.received === o.paid.toString() &&
          got.length === 1 &&
          got[0]?.event === want &&
          got[0].n === 1,
        () => ({ expected: { ...o, want }, row, outcomes: got }),
      );
      if (o.chain !== "tron") {
        const chain = o.chain as EvmChainName;
        const onChain = await evmReceived(h.evm[chain], evmToken(h, chain, o.currency), o.address);
        check(
          `order ${o.id}: the ${chain} chain holds its payments`,
          onChain === o.payments.reduce((s, p) => s + p.units, 0n),
          () => ({ onChain, payments: o.payments }),
        );
      }
    }

    // 3. Strays: each recorded once, on the chain it was seen on, at its amount.
    const strayRows = await h.query<{ chain: string; tx_hash: string; amount: string }>(
      "SELECT chain, tx_hash, amount::text FROM stray_transfers",
    );
    for (const s of ledger.strays) {
      const found = strayRows.filter((r) => r.tx_hash.toLowerCase() === s.hash.toLowerCase());
      const micro = s.chain === "bsc" ? s.units / 10n ** 12n : s.units;
      check(
        `stray ${s.hash} recorded once on ${s.chain}`,
        found.length === 1 && found[0]?.chain === s.chain && found[0].amount === micro.toString(),
        () => ({ stray: s, found }),
      );
    }

    // 4. Webhooks: no delivery left undelivered; every event reached the receiver.
    const deliveries = await h.query<{ key: string; status: string }>(
      "SELECT idempotency_key AS key, status FROM webhook_deliveries",
    );
    const received = new Map<string, number>();
    for (const r of receiver.requests) {
      const key = String(r.headers["x-idempotency-key"] ?? "");
      received.set(key, (received.get(key) ?? 0) + 1);
    }
    const undelivered = deliveries.filter((d) => d.status !== "delivered" && d.status !== "superseded");
    check("every webhook delivery delivered", undelivered.length === 0, () => undelivered.slice(0, 10));
    const missing = deliveries.filter((d) => d.status === "delivered" && !received.has(d.key));
    check("every delivered event reached the receiver", missing.length === 0, () => missing.slice(0, 10));
    const keys = new Set(deliveries.map((d) => d.key));
    const unknown = [...received.keys()].filter((k) => !keys.has(k));
    check("the receiver got no event the service did not record", unknown.length === 0, () =>
      unknown.slice(0, 10),
    );
    const redeliveries = [...received.values()].reduce((s, n) => s + n - 1, 0);

    // Static deposits: each confirmed once with one deposit.confirmed webhook, at the amounts paid.
    for (const d of ledger.deposits) {
      const rows = await h.query<{ total: string; n: number; hooks: number }>(
        `SELECT coalesce(sum(d.amount), 0)::text AS total, count(*)::int AS n,
                (SELECT count(*)::int FROM webhook_deliveries w JOIN deposits x ON x.id = w.deposit_id
                  WHERE x.deposit_address_id = $1::uuid AND w.event = 'deposit.confirmed') AS hooks
           FROM deposits d WHERE d.deposit_address_id = $1::uuid AND d.status = 'confirmed'`,
        [d.id],
      );
      const row = rows[0];
      check(
        `deposit address ${d.address} (${d.chain}): ${d.payments} deposits of ${decimal(d.paid)} confirmed, one webhook each`,
        row?.total === d.paid.toString() && row.n === d.payments && row.hooks === d.payments,
        () => ({ deposit: d, row }),
      );
    }

    // 5. The TRON chain's own transfers: payouts once each, sweeps once per payment, cold exact.
    const transfers = await tronTransfers(tron);
    const hotAddress = hot.address.base58 as string;
    const payoutRows = await h.query<{ id: string; status: string }>("SELECT id::text, status FROM payouts");
    const payoutStatus = new Map(payoutRows.map((r) => [r.id, r.status]));
    const payoutHooks = await h.query<{ payout_id: string; event: string; n: number }>(
      `SELECT payout_id::text, event, count(*)::int AS n FROM webhook_deliveries
        WHERE payout_id IS NOT NULL GROUP BY 1, 2`,
    );
    for (const p of ledger.payouts) {
      const hooks = payoutHooks.filter((x) => x.payout_id === p.id);
      check(
        `${p.kind} ${p.id}: one ${p.kind}.completed webhook`,
        hooks.length === 1 && hooks[0]?.event === `${p.kind}.completed` && hooks[0].n === 1,
        () => hooks,
      );
      if (p.chain === "tron") {
        const got = transfers.filter((t) => t.to === p.to);
        check(
          `${p.kind} ${p.id}: ${p.to} received ${decimal(p.amount)} once`,
          payoutStatus.get(p.id) === "completed" &&
            got.length === 1 &&
            got[0]?.amount === p.amount &&
            got[0].from === hotAddress,
          () => ({ payout: p, status: payoutStatus.get(p.id), transfers: got }),
        );
        continue;
      }
      // EVM: the token's Transfer logs to the recipient, over the whole chain: one, from the EVM hot
      // wallet, of the exact units (an 18-decimal token's amount scaled exactly).
      const chain = p.chain;
      const got = await evmTransfers(h.evm[chain], evmToken(h, chain, p.currency), { to: p.to });
      const units = evmUnits(chain, p.amount);
      check(
        `${p.kind} ${p.id} on ${chain}: ${p.to} received ${units} ${p.currency} units once`,
        payoutStatus.get(p.id) === "completed" &&
          got.length === 1 &&
          got[0]?.units === units &&
          got[0].from === evmHot.address.toLowerCase(),
        () => ({ payout: p, status: payoutStatus.get(p.id), transfers: got }),
      );
    }
    for (const r of ledger.refused) {
      const got =
        r.chain === "tron"
          ? transfers.filter((t) => t.to === r.to)
          : await evmTransfers(h.evm[r.chain], evmToken(h, r.chain, r.currency), { to: r.to });
      check(`the refused ${r.kind} to ${r.to} (${r.code}) moved nothing`, got.length === 0, () => got);
    }
    let swept = 0n;
    const paidAt = new Map<string, bigint>();
    for (const o of ledger.orders)
      if (o.chain === "tron") paidAt.set(o.address, (paidAt.get(o.address) ?? 0n) + o.paid);
    for (const d of ledger.deposits) {
      if (d.chain === "tron") paidAt.set(d.address, (paidAt.get(d.address) ?? 0n) + d.paid);
    }
    for (const [address, paid] of paidAt) {
      if (paid === 0n) continue;
      const out = transfers.filter((t) => t.from === address);
      const sum = out.reduce((s, t) => s + t.amount, 0n);
      swept += sum;
      check(
        `TRON address ${address}: its ${decimal(paid)} swept to the cold wallet, never twice`,
        sum === paid &&
          out.every((t) => t.to === cold) &&
          new Set(out.map((t) => t.txid)).size === out.length,
        () => ({ paid, out }),
      );
    }
    const coldBalance = await usdtBalance(tron, cold);
    check(`the cold wallet holds exactly what was swept (${decimal(swept)})`, coldBalance === swept, () => ({
      coldBalance,
      swept,
    }));

    // 6. The EVM chains' own transfers: every address we were paid at swept to the EVM cold wallet
    // exactly what it received, per token in the token's own units, and holds none; the cold wallet
    // holds exactly the sum.
    const coldWant = new Map<string, bigint>();
    for (const { chain, address, token } of evmPaid) {
      const d = h.evm[chain];
      const received = await evmReceived(d, token, address);
      const out = await evmTransfers(d, token, { from: address });
      const balance = await evmBalance(d, token, address);
      const sum = out.reduce((s, t) => s + t.units, 0n);
      coldWant.set(`${chain}:${token}`, (coldWant.get(`${chain}:${token}`) ?? 0n) + sum);
      check(
        `${chain} address ${address}: its ${received} units of ${token} swept to the cold wallet, none left`,
        sum === received && balance === 0n && out.every((t) => t.to === evmCold.toLowerCase()),
        () => ({ received, balance, out }),
      );
    }
    for (const chain of ["ethereum", "bsc"] as const) {
      const tokens =
        chain === "bsc"
          ? [h.evm.bsc.usdt18Contract]
          : [h.evm.ethereum.usdtContract, h.evm.ethereum.usdcContract];
      for (const token of tokens) {
        const want = coldWant.get(`${chain}:${token}`) ?? 0n;
        const got = await evmBalance(h.evm[chain], token, evmCold);
        check(
          `the ${chain} cold wallet holds exactly the ${want} units of ${token} swept`,
          got === want,
          () => ({
            got,
            want,
          }),
        );
      }
    }

    const report: ChaosReport = {
      seed,
      kills,
      reorgs: h.reorgs,
      counts: { ...h.counts, refused: ledger.refused.length },
      webhookRedeliveries: redeliveries,
      checks,
    };
    log(
      `  checked: ${checks.length} passed, ${failures.length} failed; ${kills} kills, ${h.reorgs} reorgs, ` +
        `${redeliveries} webhook re-deliveries, refused ${JSON.stringify(ledger.refused.map((r) => [r.kind, r.code]))}`,
    );
    if (failures.length > 0) {
      throw new Error(
        `chaos run with seed ${seed} disagreed (replay: npm run chaos -- --seed ${seed} --duration ${durationMs / 1000}):\n` +
          failures.join("\n") +
          `\n${outputs()}`,
      );
    }
    return report;
  } finally {
    stopped = true;
    if (minerTimer) clearInterval(minerTimer);
    await Promise.all(
      processes.map(async (p) => {
        if (p.alive()) p.child.kill("SIGKILL");
        await p.exited;
      }),
    );
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}
