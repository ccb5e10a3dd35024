/**
 * A lagging node can never make a sweep go out twice (issue 37, item 5; docs/payouts.md "Judged on
 * one node"). The service knows two nodes (TRON_NODE_URL = listener 1, listener 2): listener 1 is
 * current, listener 2 is `lag_blocks` behind and slow to answer lookups. A settlement's sweep is
 * solid and past its expiration. Listener 1 dies and comes back: while the pool has it set aside the
 * sweeper's lookups go to the lagging node, and the pool returns to listener 1 in the middle of the
 * sweeper's look at the transaction. The sweep must not be judged expired: the settlement completes
 * with its one sweep transaction, which the cold wallet's balance on chain shows.
 * PGlite or PostgreSQL (TEST_DATABASE_URL), the devnet over HTTP.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DevnetListener } from "@stablegate/devnet";
import { sweepTransactions } from "../../src/db/schema.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";
import { newTronAccount } from "../helpers/payout-chain.js";
import { poll } from "../helpers/poll.js";
import { usdtBalance } from "../helpers/usdt.js";
import { paidOrder, settlementOf } from "./delegate-helpers.js";

/** How long the pool sets a failed node aside; the lagging node's lookups take longer than that. */
const PAUSE_MS = 1_500;
let t: ChainTest;
let cold: { address: string };
let current: DevnetListener;
let lagging: DevnetListener;

beforeAll(async () => {
  const hot = await newTronAccount();
  cold = await newTronAccount();
  t = await startChainTest({
    devnet: { extraPorts: [0, 0] },
    nodeUrls: (d) => `${d.listeners[1]?.url},${d.listeners[2]?.url}`,
    pool: { failureThreshold: 3, pauseMs: PAUSE_MS, maxPauseMs: PAUSE_MS, probeIntervalMs: 60_000 },
    env: {
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: cold.address,
      SWEEP_ENABLED: "true",
      SWEEP_MIN_USDT: "1",
    },
  });
  current = t.devnet.listeners[1] as DevnetListener;
  lagging = t.devnet.listeners[2] as DevnetListener;
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "1000", solidify: true });
  await t.scanner.sync();
}, 120_000);
afterAll(() => t?.close());

const faults = (l: DevnetListener, body: Record<string, unknown>) =>
  fetch(`${l.url}/devnet/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const ledgerOf = (settlementId: string) =>
  t.ctx.db
    .select({ kind: sweepTransactions.kind, state: sweepTransactions.state, hash: sweepTransactions.txHash })
    .from(sweepTransactions)
    .where(eq(sweepTransactions.settlementId, settlementId));

describe("a sweep in flight while the node fails over to one that lags", () => {
  it("is never judged expired on the lagging node's word: one sweep transaction, completed", async () => {
    const order = await paidOrder(t, "20", 20_000_000n);
    for (let i = 0; i < 6 && (await settlementOf(t, order.id))?.step !== "sweep_sent"; i++) {
      t.devnet.mine(SOLIDIFY_AFTER + 1);
      t.clock.advance(60_000);
      await runDueSweeps(t.ctx);
    }
    const sent = await settlementOf(t, order.id);
    expect(sent).toMatchObject({ status: "active", step: "sweep_sent" });
    // The sweep lands, is solidified, and the chain's clock moves past its expiration.
    t.mine(1);
    t.devnet.advanceClock(70_000);
    t.mine(SOLIDIFY_AFTER + 2);
    expect(await usdtBalance(t.devnet, cold.address)).toBe(20_000_000n);

    // Listener 2 falls behind, its lookups slower than the pool's pause; listener 1 dies, is set
    // aside, and comes back: the pool tries it again PAUSE_MS later, in the middle of a look.
    await faults(lagging, {
      lag_blocks: 40,
      latency_ms: PAUSE_MS,
      paths: ["/walletsolidity/gettransactioninfobyid", "/wallet/gettransactioninfobyid"],
    });
    await current.stop();
    await poll("the pool to fail over", async () => {
      await t.ctx.chain.client.getNowBlock().catch(() => undefined);
      return t.ctx.chain.client.status()[1]?.active === true;
    });
    await current.start();
    t.clock.advance(60_000);
    await runDueSweeps(t.ctx);
    expect((await ledgerOf(sent!.id)).map((x) => x.state)).not.toContain("expired");

    await faults(lagging, {});
    const done = await poll(
      "the settlement to complete",
      async () => {
        t.clock.advance(31 * 60_000);
        await runDueSweeps(t.ctx);
        t.mine(1);
        return (await settlementOf(t, order.id))?.status === "completed";
      },
      {
        intervalMs: 50,
        describe: async () => ({ row: await settlementOf(t, order.id), ledger: await ledgerOf(sent!.id) }),
      },
    );
    expect(done).toBe(true);
    const ledger = await ledgerOf(sent!.id);
    expect(ledger.filter((x) => x.kind === "sweep")).toEqual([
      { kind: "sweep", state: "solid", hash: sent!.sweepTxHash },
    ]);
    expect((await settlementOf(t, order.id))?.attempts).toBe(0);
    expect(await usdtBalance(t.devnet, cold.address)).toBe(20_000_000n);
  }, 120_000);
});
