/**
 * Chain tests: a devnet in-process (no block timer: blocks are mined explicitly, so nothing sleeps),
 * a fresh database, a context pointed at the devnet with small CONFIRMATIONS, and helpers to create
 * orders through createOrder and pay them with TronWeb over HTTP.
 */
import { and, asc, eq } from "drizzle-orm";
import { TronWeb } from "tronweb";
import { startDevnet, type Devnet, type DevnetOptions } from "@stablegate/devnet";
import { createScanner, type Scanner, type ScannerOptions } from "../../src/chain/scanner.js";
import { readCursor } from "../../src/chain/cursor.js";
import { createChainAccess } from "../../src/chain/chain-access.js";
import type { NodePoolOptions } from "../../src/chain/node-pool.js";
import { createMetrics } from "../../src/metrics/metrics.js";
import type { Config } from "../../src/config.js";
import { createContext, type Context } from "../../src/context.js";
import type { Database } from "../../src/db/connection.js";
import { orderEvents, orders, transfers, webhookDeliveries } from "../../src/db/schema.js";
import { createLogger, type Logger } from "../../src/logger.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { createOrder } from "../../src/payments/create-order.js";
import { FakeClock } from "../helpers/clock.js";
import { testConfig } from "../helpers/config.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";

/** A fake clock that moves 1 ms per reading, so events written in one test step keep their order. */
export class TickingClock extends FakeClock {
  override now(): Date {
    this.advance(1);
    return super.now();
  }
}

export const CONFIRMATIONS = 3;
export const SOLIDIFY_AFTER = 3;
/** Fast retries: the fault tests must not wait seconds per failed call. */
export const FAST_RETRY = { baseMs: 10, capMs: 100 };

export interface ChainTest {
  devnet: Devnet;
  ctx: Context;
  clock: TickingClock;
  testDb: TestDatabase;
  /** TronWeb signing with the faucet key. */
  tw: TronWeb;
  scanner: Scanner;
  merchantId: string;
  config: Config;
  newScanner(options?: ScannerOptions): Scanner;
  /** A pending order through createOrder; returns its id and receive address. */
  order(amount: string, options?: { expiresIn?: number }): Promise<{ id: string; address: string }>;
  /** A USDT transfer signed by TronWeb and broadcast (not mined yet); returns the txID. */
  pay(to: string, micro: bigint, options?: PayOptions): Promise<string>;
  mine(blocks?: number): number;
  /** Mines until a block mined now is final, then scans and confirms. */
  finalize(): Promise<void>;
  orderRow(id: string): Promise<typeof orders.$inferSelect>;
  events(id: string): Promise<string[]>;
  transfersOf(id: string): Promise<(typeof transfers.$inferSelect)[]>;
  deliveries(id: string): Promise<(typeof webhookDeliveries.$inferSelect)[]>;
  cursor(): Promise<number | undefined>;
  devnetPost<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

export interface PayOptions {
  privateKey?: string;
  feeLimit?: number;
  /** Another TRC20 contract instead of USDT. */
  contract?: string;
  method?: string;
  params?: { type: string; value: string | number }[];
}

export interface ChainTestOptions {
  env?: Record<string, string>;
  devnet?: DevnetOptions;
  /** Share an open database (e.g. a second context on the same data). */
  database?: Database;
  scanner?: ScannerOptions;
  /** TRON_NODE_URL from the started devnet (e.g. two of its listeners); default its main URL. */
  nodeUrls?: (devnet: Devnet) => string;
  /** Default: a silent logger. */
  log?: Logger;
  /** Node failover tuning. */
  pool?: NodePoolOptions;
}

export async function startChainTest(options: ChainTestOptions = {}): Promise<ChainTest> {
  const devnet = await startDevnet({
    blockTimeMs: 0,
    solidifyAfter: SOLIDIFY_AFTER,
    quiet: true,
    ...options.devnet,
  });
  const config = testConfig({
    TRON_NODE_URL: options.nodeUrls ? options.nodeUrls(devnet) : devnet.url,
    USDT_CONTRACT: devnet.usdtContract,
    CONFIRMATIONS: String(CONFIRMATIONS),
    ...options.env,
  });
  const testDb = await createTestDatabase();
  const clock = new TickingClock();
  const log = options.log ?? createLogger({ level: "silent" });
  const metrics = createMetrics({ processMetrics: false });
  const ctx = await createContext(config, {
    metrics,
    database: options.database ?? testDb.database,
    clock,
    log,
    ...(options.pool ? { chain: createChainAccess(config, { log, metrics, pool: options.pool }) } : {}),
  });
  const { merchant } = await createMerchant(ctx, { name: "Chain Shop", webhookSecret: "whsec-chain-test" });
  const tw = new TronWeb({ fullHost: devnet.url, privateKey: devnet.faucetKey });
  const newScanner = (o: ScannerOptions = {}) =>
    createScanner(ctx, { maxIdleMs: 20, retry: FAST_RETRY, ...options.scanner, ...o });
  const scanner = newScanner();
  let counter = 0;

  const devnetPost = async <T>(path: string, body: unknown = {}): Promise<T> => {
    const res = await fetch(devnet.url + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text}`);
    return JSON.parse(text) as T;
  };

  const t: ChainTest = {
    devnet,
    ctx,
    clock,
    testDb,
    tw,
    scanner,
    merchantId: merchant.id,
    config,
    newScanner,
    async order(amount, o = {}) {
      const { order } = await createOrder(
        ctx,
        { id: merchant.id },
        {
          externalId: `chain-${++counter}-${Date.now()}`,
          amount,
          currency: "USDT",
          callbackUrl: "https://merchant.example.com/hooks",
          expiresIn: o.expiresIn,
        },
      );
      return { id: order.id, address: order.address };
    },
    async pay(to, micro, o = {}) {
      const key = o.privateKey ?? devnet.faucetKey;
      const from = TronWeb.address.fromPrivateKey(key) as string;
      const { transaction } = await tw.transactionBuilder.triggerSmartContract(
        o.contract ?? devnet.usdtContract,
        o.method ?? "transfer(address,uint256)",
        { feeLimit: o.feeLimit ?? 100_000_000 },
        o.params ?? [
          { type: "address", value: to },
          { type: "uint256", value: micro.toString() },
        ],
        from,
      );
      const signed = await tw.trx.sign(transaction, key);
      const sent = await tw.trx.sendRawTransaction(signed);
      if (!sent.result) throw new Error(`broadcast refused: ${JSON.stringify(sent)}`);
      return signed.txID;
    },
    mine: (blocks = 1) => devnet.mine(blocks),
    async finalize() {
      devnet.mine(Math.max(CONFIRMATIONS, SOLIDIFY_AFTER + 1));
      await scanner.sync();
    },
    async orderRow(id) {
      const [row] = await ctx.db.select().from(orders).where(eq(orders.id, id));
      if (!row) throw new Error(`order ${id} not found`);
      return row;
    },
    async events(id) {
      const rows = await ctx.db
        .select({ type: orderEvents.eventType })
        .from(orderEvents)
        .where(eq(orderEvents.orderId, id))
        .orderBy(asc(orderEvents.createdAt), asc(orderEvents.id));
      return rows.map((r) => r.type);
    },
    transfersOf: (id) =>
      ctx.db
        .select()
        .from(transfers)
        .where(and(eq(transfers.orderId, id)))
        .orderBy(asc(transfers.blockNumber), asc(transfers.logIndex)),
    deliveries: (id) =>
      ctx.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.orderId, id))
        .orderBy(asc(webhookDeliveries.createdAt)),
    cursor: async () => (await readCursor(ctx))?.number,
    devnetPost,
    async close() {
      await ctx.chain.close();
      await devnet.close();
      await testDb.drop();
    },
  };
  return t;
}

/** A fresh account funded from the faucet (mined and solidified). */
export async function fundedAccount(
  t: ChainTest,
  trx: string,
  usdt?: string,
): Promise<{ privateKey: string; address: string }> {
  const account = await TronWeb.createAccount();
  await t.devnetPost("/devnet/fund", { address: account.address.base58, trx, ...(usdt ? { usdt } : {}) });
  return { privateKey: account.privateKey, address: account.address.base58 };
}

/**
 * Every USDT Transfer to one of `watched` in blocks [from, to], read straight from the node: the
 * oracle the scanner's transfers table is compared with.
 */
export async function chainTransfers(
  t: ChainTest,
  watched: Set<string>,
  from: number,
  to: number,
): Promise<string[]> {
  const usdt = TronWeb.address.toHex(t.devnet.usdtContract).toLowerCase().slice(2);
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    const res = await fetch(`${t.devnet.url}/wallet/gettransactioninfobyblocknum`, {
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
      (info.log ?? []).forEach((log, i) => {
        if (log.address !== usdt || log.topics[0] !== TRANSFER_TOPIC_HEX) return;
        const to58 = TronWeb.address.fromHex("41" + (log.topics[2] as string).slice(24));
        if (watched.has(to58) && BigInt("0x" + log.data) > 0n) out.push(`${info.id}:${i}`);
      });
    }
  }
  return out.sort();
}

const TRANSFER_TOPIC_HEX = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
