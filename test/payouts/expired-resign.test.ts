/**
 * A payout's stored transaction that never lands is replaced only once it has expired unconfirmed
 * in the solidified chain, seen so on two separate rounds (DESIGN.md 14), and the payout is paid exactly once, proved by the
 * chain's own transfers out of the hot wallet:
 *  - stored, never broadcast (the sender stops dead after storing): the devnet's clock is moved
 *    past the transaction's expiration (/devnet/time, so the test needs no 60 s of real time); the
 *    sender marks it expired and signs exactly one new transaction, which lands;
 *  - broadcast and dropped (a fork forgets the block holding it): the same, once expired.
 * PGlite or PostgreSQL (TEST_DATABASE_URL), the devnet over HTTP.
 */
import { approvedPayout as approvedPayoutOf } from "../helpers/payout-chain.js";
import { asc, eq } from "drizzle-orm";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payouts, payoutTransactions } from "../../src/db/schema.js";
import { checkLedger } from "../../src/ledger/check-ledger.js";
import { runDuePayouts } from "../../src/payouts/send-payouts.js";
import { evmHex } from "@stablegate/tron/address";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const USDT = 1_000_000n;
let t: ChainTest;
let hot: string;
let firstBlock = 0;

beforeAll(async () => {
  const account = await TronWeb.createAccount();
  hot = account.address.base58;
  t = await startChainTest({ env: { HOT_WALLET_PRIVATE_KEY: account.privateKey, SWEEP_ENABLED: "false" } });
  await t.devnetPost("/devnet/fund", { address: hot, trx: "1000", usdt: "1000", solidify: true });
  await t.scanner.sync();
  const order = await t.order("100");
  await t.pay(order.address, 100n * USDT);
  t.mine(1);
  await t.finalize();
  firstBlock = (await t.ctx.chain.client.getNowBlock()).block_header.raw_data.number ?? 0;
}, 120_000);
afterAll(() => t?.close());

const approvedPayout = (to: string, externalId: string, amount: string) =>
  approvedPayoutOf(t, "sg_test_expiry", to, externalId, amount);

/** USDT Transfer events from the hot wallet to `to` in the chain as it stands. */
async function transfersOut(to: string): Promise<number> {
  const head = (await t.ctx.chain.client.getNowBlock()).block_header.raw_data.number ?? 0;
  const from = evmHex(hot).padStart(64, "0");
  const dest = evmHex(to).padStart(64, "0");
  let n = 0;
  for (let block = firstBlock; block <= head; block++) {
    for (const info of await t.ctx.chain.client.getTransactionInfoByBlockNum(block)) {
      for (const log of info.log ?? []) {
        if (log.topics?.[0] === TRANSFER_TOPIC && log.topics[1] === from && log.topics[2] === dest) n++;
      }
    }
  }
  return n;
}

const txsOf = (id: string) =>
  t.ctx.db
    .select({
      hash: payoutTransactions.txHash,
      state: payoutTransactions.state,
      attempt: payoutTransactions.attempt,
    })
    .from(payoutTransactions)
    .where(eq(payoutTransactions.payoutId, id))
    .orderBy(asc(payoutTransactions.attempt));

async function rowOf(id: string) {
  const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
  if (!row) throw new Error(`payout ${id} not found`);
  return row;
}

/** Runs the sender, mining and solidifying between rounds, until the payout ends. */
async function sendUntilDone(id: string) {
  for (let i = 0; i < 20; i++) {
    await runDuePayouts(t.ctx);
    t.devnet.mine(SOLIDIFY_AFTER + 1);
    t.clock.advance(60_000); // past any wait of the sender
    const row = await rowOf(id);
    if (row.status === "completed" || row.status === "failed") return row;
  }
  throw new Error(`payout not done: ${JSON.stringify(await txsOf(id))} ${(await rowOf(id)).lastError}`);
}

/** Moves the devnet's clock past `expirationMs` and solidifies a block stamped after it. */
async function expireOnChain(expirationMs: number) {
  const head = (await t.ctx.chain.client.getNowBlock()).block_header.raw_data.timestamp ?? 0;
  await t.devnetPost("/devnet/time", { advance_ms: Math.max(1, expirationMs - head + 6_000) });
  t.devnet.mine(SOLIDIFY_AFTER + 2);
  const solid = await t.ctx.chain.client.getSolidifiedNowBlock();
  expect(solid.block_header.raw_data.timestamp ?? 0).toBeGreaterThan(expirationMs);
}

describe("a stored payout transaction that never lands", () => {
  it("stored but never broadcast: expires, exactly one new transaction is signed, paid once", async () => {
    const to = (await TronWeb.createAccount()).address.base58 as string;
    const id = await approvedPayout(to, "expiry-unsent", "4");
    // The sender stops dead right after storing: the signed bytes are in the database, not sent.
    const died = new Error("the worker died after storing");
    await runDuePayouts(t.ctx, {
      onStep: (step) => {
        if (step === "stored") throw died;
      },
    });
    const [first] = await txsOf(id);
    if (!first) throw new Error("nothing stored");
    expect(first).toMatchObject({ state: "signed", attempt: 1 });
    expect(await t.ctx.chain.client.getTransactionInfoById(first.hash)).toBeFalsy();
    const [stored] = await t.ctx.db
      .select({ expiration: payoutTransactions.expirationMs })
      .from(payoutTransactions)
      .where(eq(payoutTransactions.txHash, first.hash));

    await expireOnChain(Number(stored?.expiration));
    // One round that finds it missing past its expiration is not enough: it is counted, not expired.
    t.clock.advance(60_000);
    await runDuePayouts(t.ctx);
    const [once] = await t.ctx.db
      .select({ state: payoutTransactions.state, missed: payoutTransactions.missingSeenCount })
      .from(payoutTransactions)
      .where(eq(payoutTransactions.payoutId, id));
    expect(once).toEqual({ state: "signed", missed: 1 });
    const done = await sendUntilDone(id);
    expect(done.status).toBe("completed");
    const txs = await txsOf(id);
    expect(txs.map((x) => [x.attempt, x.state])).toEqual([
      [1, "expired"],
      [2, "solid"],
    ]);
    expect(done.txHash).toBe(txs[1]?.hash);
    expect(await t.ctx.chain.client.getTransactionInfoById(first.hash)).toBeFalsy();
    expect(await transfersOut(to)).toBe(1);
    expect(await usdtBalance(t.devnet, to)).toBe(4n * USDT);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  }, 180_000);

  it("broadcast, then dropped by a fork: expires, exactly one new transaction is signed, paid once", async () => {
    const to = (await TronWeb.createAccount()).address.base58 as string;
    const id = await approvedPayout(to, "expiry-dropped", "6");
    await runDuePayouts(t.ctx); // signed, stored, broadcast
    const [first] = await txsOf(id);
    if (!first) throw new Error("nothing stored");
    expect(first.state).toBe("sent");
    t.devnet.mine(1);
    expect(await t.ctx.chain.client.getTransactionInfoById(first.hash)).toBeTruthy();
    await t.devnetPost("/devnet/fork", { depth: 1 }); // the block holding it is gone, and the tx with it
    expect(await t.ctx.chain.client.getTransactionInfoById(first.hash)).toBeFalsy();
    const [stored] = await t.ctx.db
      .select({ expiration: payoutTransactions.expirationMs })
      .from(payoutTransactions)
      .where(eq(payoutTransactions.txHash, first.hash));

    await expireOnChain(Number(stored?.expiration));
    const done = await sendUntilDone(id);
    expect(done.status).toBe("completed");
    const txs = await txsOf(id);
    expect(txs.map((x) => [x.attempt, x.state])).toEqual([
      [1, "expired"],
      [2, "solid"],
    ]);
    expect(await transfersOut(to)).toBe(1);
    expect(await usdtBalance(t.devnet, to)).toBe(6n * USDT);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  }, 180_000);
});
