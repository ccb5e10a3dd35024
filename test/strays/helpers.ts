/**
 * Stray-transfer tests: the chain harness (devnet over HTTP, the real scanner and confirmer) with
 * sweeping on (a funded hot wallet, a cold wallet), the real app on the same context for the admin
 * and merchant APIs, and helpers to read the books.
 */
import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { TronWeb } from "tronweb";
import { addresses, settlements, strayTransfers } from "../../src/db/schema.js";
import { buildApp } from "../../src/http/app.js";
import { transitionOrder } from "../../src/orders/transitions.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { adminCookie } from "../helpers/admin.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";

export const USDT = 1_000_000n;
export const QUARANTINE_S = 600;

export interface StrayTest {
  t: ChainTest;
  app: FastifyInstance;
  cookie: string;
  cold: string;
  close(): Promise<void>;
}

export async function startStrayTest(env: Record<string, string> = {}): Promise<StrayTest> {
  const hot = await TronWeb.createAccount();
  const cold = await TronWeb.createAccount();
  const t = await startChainTest({
    env: {
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: cold.address.base58,
      SWEEP_ENABLED: "true",
      SWEEP_MIN_USDT: "1",
      ADDRESS_QUARANTINE_SECONDS: String(QUARANTINE_S),
      POOL_MIN_FREE: "5",
      ...env,
    },
  });
  await t.devnetPost("/devnet/fund", { address: hot.address.base58, trx: "5000", solidify: true });
  await t.scanner.sync(); // first start: the cursor is placed at the head
  const app = await buildApp(t.ctx);
  await app.ready();
  const cookie = await adminCookie(app);
  return {
    t,
    app,
    cookie,
    cold: cold.address.base58,
    async close() {
      await app.close();
      await t.close();
    },
  };
}

export async function addressRow(t: ChainTest, address: string) {
  const [row] = await t.ctx.db.select().from(addresses).where(eq(addresses.address, address));
  return row;
}

export async function straysTo(t: ChainTest, address: string) {
  return t.ctx.db
    .select()
    .from(strayTransfers)
    .where(eq(strayTransfers.toAddress, address))
    .orderBy(asc(strayTransfers.blockNumber), asc(strayTransfers.logIndex));
}

export async function addressSettlement(t: ChainTest, address: string) {
  const [row] = await t.ctx.db
    .select()
    .from(settlements)
    .where(and(eq(settlements.address, address), isNull(settlements.orderId)));
  return row;
}

/** Mines, solidifies and runs the sweeper until no settlement is waiting or active. */
export async function sweepAll(t: ChainTest, rounds = 16): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    const open = await t.ctx.db.select({ status: settlements.status }).from(settlements);
    if (!open.some((s) => s.status === "waiting" || s.status === "active")) return;
    t.devnet.mine(SOLIDIFY_AFTER + 1);
    t.clock.advance(31 * 60_000); // past any backoff
    await runDueSweeps(t.ctx);
  }
  const left = await t.ctx.db.select().from(settlements);
  throw new Error(
    `settlements still open after ${rounds} rounds: ${JSON.stringify(left.map((s) => [s.address, s.status, s.step, s.lastError]))}`,
  );
}

/** The webhook got its 2xx: the order completes (as the sender would record it). */
export async function complete(t: ChainTest, orderId: string): Promise<void> {
  const order = await t.orderRow(orderId);
  await transitionOrder(t.ctx, t.ctx.db, { order, to: "completed", event: "order_completed" });
}

export async function payAndConfirm(t: ChainTest, to: string, micro: bigint): Promise<string> {
  const txid = await t.pay(to, micro);
  t.mine(1);
  await t.finalize();
  return txid;
}

/** A free address of the pool that never received a stray (the pool filler derives it if need be). */
export async function spareAddress(t: ChainTest): Promise<string> {
  await fillAddressPool(t.ctx);
  const [spare] = await t.ctx.db
    .select()
    .from(addresses)
    .where(
      and(
        eq(addresses.status, "free"),
        sql`NOT EXISTS (SELECT 1 FROM stray_transfers st WHERE st.address_id = ${addresses.id})`,
      ),
    )
    .orderBy(desc(addresses.derivationIndex))
    .limit(1);
  if (!spare) throw new Error("no free address in the pool");
  return spare.address;
}

/** A confirmed stray transfer of `micro` to a spare pool address. */
export async function confirmedStray(t: ChainTest, micro: bigint): Promise<{ id: string; txHash: string }> {
  const address = await spareAddress(t);
  const txHash = await payAndConfirm(t, address, micro);
  const [row] = await straysTo(t, address);
  if (!row || row.status !== "confirmed")
    throw new Error(`the stray was not confirmed: ${JSON.stringify(row)}`);
  return { id: row.id, txHash };
}
