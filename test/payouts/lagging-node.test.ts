/**
 * A lagging node can never make a payout go out twice (issue 37, item 5; docs/payouts.md "Judged
 * on one node"). The service knows two nodes (TRON_NODE_URL = listener 1, listener 2): listener 1
 * is current, listener 2 is `lag_blocks` behind. A round has read the solidified head on listener 1
 * for one payout when listener 1 dies and the pool fails over to listener 2; the next payout of the
 * same round is in flight, its transaction solid and past its expiration, but listener 2 has not
 * seen its block. It must not be judged expired: exactly one transaction lands, proved by the
 * recipient's balance on chain and the payout's transactions.
 * PGlite or PostgreSQL (TEST_DATABASE_URL), the devnet over HTTP.
 */
import { approvedPayout as approvedPayoutOf } from "../helpers/payout-chain.js";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DevnetListener } from "@stablegate/devnet";
import { payoutTransactions } from "../../src/db/schema.js";
import { newSendRound } from "../../src/payouts/payout-chain.js";
import { claimDuePayouts } from "../../src/payouts/payout-store.js";
import { advancePayout, payoutDeps, runDuePayouts } from "../../src/payouts/send-payouts.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";
import { newTronAccount, payoutRow } from "../helpers/payout-chain.js";
import { poll } from "../helpers/poll.js";
import { usdtBalance } from "../helpers/usdt.js";

const USDT = 1_000_000n;
const LAG = 40;
let t: ChainTest;
let current: DevnetListener;
let lagging: DevnetListener;

beforeAll(async () => {
  const hot = await newTronAccount();
  t = await startChainTest({
    devnet: { extraPorts: [0, 0] },
    nodeUrls: (d) => `${d.listeners[1]?.url},${d.listeners[2]?.url}`,
    pool: { failureThreshold: 3, pauseMs: 200, maxPauseMs: 400, probeIntervalMs: 60_000 },
    env: { HOT_WALLET_PRIVATE_KEY: hot.privateKey, SWEEP_ENABLED: "false" },
  });
  current = t.devnet.listeners[1] as DevnetListener;
  lagging = t.devnet.listeners[2] as DevnetListener;
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "1000", usdt: "1000", solidify: true });
  await t.scanner.sync();
  const order = await t.order("100");
  await t.pay(order.address, 100n * USDT);
  t.mine(1);
  await t.finalize();
}, 120_000);
afterAll(() => t?.close());

const approvedPayout = (to: string, externalId: string, amount: string) =>
  approvedPayoutOf(t, "sg_test_lag", to, externalId, amount);

const txsOf = (id: string) =>
  t.ctx.db
    .select({ hash: payoutTransactions.txHash, state: payoutTransactions.state })
    .from(payoutTransactions)
    .where(eq(payoutTransactions.payoutId, id))
    .orderBy(asc(payoutTransactions.attempt));

const faults = (l: DevnetListener, body: Record<string, unknown>) =>
  fetch(`${l.url}/devnet/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("a payout in flight while the node fails over to one that lags", () => {
  it("is never judged expired on the lagging node's word: exactly one transaction lands", async () => {
    const early = await newTronAccount();
    const late = await newTronAccount();
    const earlyId = await approvedPayout(early.address, "lag-early", "3");
    const lateId = await approvedPayout(late.address, "lag-late", "5");
    await runDuePayouts(t.ctx); // both signed, stored and broadcast on the current node
    t.mine(1);
    const [sent] = await txsOf(lateId);
    if (!sent) throw new Error("the late payout stored nothing");
    // Both transactions are solid, and the solidified chain is past their expiration.
    t.devnet.advanceClock(70_000);
    t.mine(SOLIDIFY_AFTER + 2);
    const [stored] = await t.ctx.db
      .select({ expiration: payoutTransactions.expirationMs })
      .from(payoutTransactions)
      .where(eq(payoutTransactions.txHash, sent.hash));
    const solid = (await (await fetch(`${t.devnet.url}/walletsolidity/getnowblock`)).json()) as {
      block_header: { raw_data: { timestamp: number } };
    };
    expect(solid.block_header.raw_data.timestamp).toBeGreaterThan(Number(stored?.expiration));
    await faults(lagging, { lag_blocks: LAG });

    t.clock.advance(60_000);
    const owner = "lag-test";
    expect(await claimDuePayouts(t.ctx, owner, 10, 60_000)).toHaveLength(2);
    const d = payoutDeps(t.ctx, owner);
    if (!d) throw new Error("no payout sender in this context");
    const round = newSendRound(d);
    // The round reads the head on the current node and completes the first payout there.
    expect(await advancePayout(d, earlyId, {}, round)).toBe("completed");
    // The current node dies; the pool sets it aside and calls go to the lagging node.
    await current.stop();
    await poll("the pool to fail over", async () => {
      await t.ctx.chain.client.getNowBlock().catch(() => undefined);
      return t.ctx.chain.client.status()[1]?.active === true;
    });
    // The rest of the round stays on its node: the dead node's error ends it, and nothing is
    // judged on the lagging node's word.
    await expect(advancePayout(d, lateId, {}, round)).rejects.toMatchObject({ retryable: true });
    expect((await txsOf(lateId)).map((x) => x.state)).not.toContain("expired");

    // Later rounds, on the lagging node and then on the current one once it is back.
    await current.start();
    const done = await poll(
      "the late payout to complete",
      async () => {
        await runDuePayouts(t.ctx);
        t.mine(1);
        t.clock.advance(60_000);
        return (await payoutRow(t, lateId)).status === "completed";
      },
      {
        intervalMs: 50,
        describe: async () => ({ txs: await txsOf(lateId), nodes: t.ctx.chain.client.status() }),
      },
    );
    expect(done).toBe(true);
    const txs = await txsOf(lateId);
    expect(txs).toEqual([{ hash: sent.hash, state: "solid" }]);
    expect((await payoutRow(t, lateId)).txHash).toBe(sent.hash);
    expect(await usdtBalance(t.devnet, late.address)).toBe(5n * USDT);
    expect(await usdtBalance(t.devnet, early.address)).toBe(3n * USDT);
  }, 120_000);

  it("forgets the rounds a transaction was missed once it is seen in a block", async () => {
    const to = await newTronAccount();
    const id = await approvedPayout(to.address, "lag-seen", "2");
    await runDuePayouts(t.ctx);
    const [sent] = await txsOf(id);
    if (!sent) throw new Error("nothing stored");
    // As if one round's node had found it missing past its expiration.
    await t.ctx.db
      .update(payoutTransactions)
      .set({ missingSeenCount: 1, missingSeenAt: t.clock.now() })
      .where(eq(payoutTransactions.txHash, sent.hash));
    t.mine(1);
    t.clock.advance(60_000);
    await runDuePayouts(t.ctx);
    const [row] = await t.ctx.db
      .select({ missed: payoutTransactions.missingSeenCount, at: payoutTransactions.missingSeenAt })
      .from(payoutTransactions)
      .where(eq(payoutTransactions.txHash, sent.hash));
    expect(row).toEqual({ missed: 0, at: null });
  }, 60_000);
});
