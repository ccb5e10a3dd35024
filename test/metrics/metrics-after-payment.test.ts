/**
 * The figures move with real work: an order paid over the devnet, confirmed by the real scanner,
 * its webhook delivered to a real receiver, its USDT swept to the cold wallet, then one snapshot
 * refresh; a scrape of the real app before and after shows each family changed by what happened.
 * Then the preferred node fails over, and every stablegate_* family the service serves by then must
 * be documented in docs/metrics.md (and every documented one served): the doc is checked against
 * what really runs, not against one registry.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { settlements, sweepCosts } from "../../src/db/schema.js";
import { buildApp, type App } from "../../src/http/app.js";
import { refreshMetricsSnapshot } from "../../src/metrics/refresh-metrics-snapshot.js";
import { createOrder } from "../../src/payments/create-order.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { createWebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";
import { startReceiver, type Receiver } from "../webhooks/fixtures.js";
import { poll } from "../helpers/poll.js";

function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

let t: ChainTest;
let app: App;
let hook: Receiver;
let hot: string;

const ROOT = resolve(import.meta.dirname, "../..");
/** Listener 0 is the test's own door to the chain; the service knows listeners 1 and 2. */
const serviceNode = (i: 1 | 2) => t.devnet.listeners[i]?.url as string;

beforeAll(async () => {
  const hotAccount = await TronWeb.createAccount();
  hot = hotAccount.address.base58;
  t = await startChainTest({
    devnet: { extraPorts: [0, 0] },
    nodeUrls: (d) => `${d.listeners[1]?.url},${d.listeners[2]?.url}`,
    pool: { failureThreshold: 3, pauseMs: 200, maxPauseMs: 1000, probeIntervalMs: 300 },
    env: {
      HOT_WALLET_PRIVATE_KEY: hotAccount.privateKey,
      COLD_WALLET_ADDRESS: (await TronWeb.createAccount()).address.base58,
      SWEEP_ENABLED: "true",
    },
  });
  await t.devnetPost("/devnet/fund", { address: hot, trx: "1000", solidify: true });
  await t.scanner.sync();
  hook = await startReceiver();
  app = await buildApp(t.ctx);
}, 120_000);
afterAll(async () => {
  await app?.close();
  await hook?.close();
  await t?.close();
});

describe("metrics after a devnet payment", () => {
  it("count the order, its outcome, the scan, node calls, the webhook, the sweep and the balances", async () => {
    const scrape = async () => (await app.inject({ method: "GET", url: "/metrics" })).body;
    const before = await scrape();
    const devnetNode = `stablegate_node_calls_total{node="${serviceNode(1)}",endpoint="/wallet/getnowblock",result="ok",chain="tron"}`;

    const { order } = await createOrder(
      t.ctx,
      { id: t.merchantId },
      { externalId: "metrics-1", amount: "25", currency: "USDT", callbackUrl: hook.url },
    );
    await t.pay(order.address, 25_000_000n);
    t.mine(1);
    await t.finalize();
    const deliverer = createWebhookDeliverer(t.ctx);
    try {
      await deliverer.deliverDue();
    } finally {
      await deliverer.close();
    }
    let settlement;
    for (let i = 0; i < 12 && settlement?.status !== "completed"; i++) {
      t.devnet.mine(SOLIDIFY_AFTER + 1);
      t.clock.advance(31 * 60_000);
      await runDueSweeps(t.ctx);
      [settlement] = await t.ctx.db.select().from(settlements).where(eq(settlements.orderId, order.id));
    }
    expect(settlement?.status).toBe("completed");
    t.clock.advance(60_000);
    expect((await refreshMetricsSnapshot(t.ctx)).refreshed).toBe(true);
    const after = await scrape();

    const moved = (series: string) => sample(after, series) - sample(before, series);
    expect(moved("stablegate_orders_created_total")).toBe(1);
    expect(moved('stablegate_order_outcomes_total{status="confirmed"}')).toBe(1);
    expect(moved('stablegate_order_outcomes_total{status="completed"}')).toBe(1);
    expect(moved('stablegate_webhook_deliveries_total{result="delivered"}')).toBe(1);
    expect(moved('stablegate_sweeps_total{result="completed"}')).toBe(1);
    expect(moved(devnetNode)).toBeGreaterThan(0);

    const head = t.devnet.mine(0);
    expect(sample(after, 'stablegate_scanner_scanned_block{chain="tron"}')).toBeGreaterThan(0);
    expect(sample(after, 'stablegate_scanner_head_block{chain="tron"}')).toBeLessThanOrEqual(head);
    expect(sample(after, 'stablegate_scanner_lag_blocks{chain="tron"}')).toBe(
      sample(after, 'stablegate_scanner_head_block{chain="tron"}') -
        sample(after, 'stablegate_scanner_scanned_block{chain="tron"}'),
    );

    // TRX spent is what the cost ledger read from the transaction infos' fees (the funding
    // transfer's and the sweep's), not what was sent to the address; the balance is the node's.
    const [cost] = await t.ctx.db.select().from(sweepCosts).where(eq(sweepCosts.orderId, order.id));
    const burnt = Number(cost?.trxBurnt ?? 0n) / 1e6;
    expect(burnt).toBeGreaterThan(6);
    expect(burnt).toBeLessThan(Number(settlement?.feeTrx ?? 0n) / 1e6 + 1);
    expect(moved("stablegate_sweep_spent_trx_total")).toBeCloseTo(burnt, 6);
    expect(moved("stablegate_sweep_delegated_energy_total")).toBe(0);
    const account = await t.ctx.chain.client.getAccount(hot);
    expect(sample(after, "stablegate_hot_wallet_balance_trx")).toBeCloseTo(
      Number(account?.balance ?? 0) / 1e6,
      6,
    );
    expect(sample(after, "stablegate_hot_wallet_balance_trx")).toBeLessThan(1000);
    expect(sample(after, "stablegate_address_pool_free_addresses")).toBeGreaterThanOrEqual(0);
    expect(after).toMatch(/^stablegate_address_pool_free_addresses \d+$/m);
    expect(sample(after, "stablegate_webhook_due_deliveries")).toBe(0);
    expect(sample(after, 'stablegate_settlements{status="failed"}')).toBe(0);
    expect(sample(after, "stablegate_hot_wallet_staked_energy")).toBe(0);
  }, 180_000);

  it("serves, after a node failover, only families that docs/metrics.md documents, and all of them", async () => {
    const scrape = async () => (await app.inject({ method: "GET", url: "/metrics" })).body;
    await t.devnet.listeners[1]?.stop();
    try {
      let lastScrape = "";
      await poll(
        `the failover to ${serviceNode(2)}`,
        async () => {
          t.mine(1);
          await t.scanner.sync().catch(() => undefined);
          lastScrape = await scrape();
          return sample(lastScrape, `stablegate_node_active{node="${serviceNode(2)}",chain="tron"}`) === 1;
        },
        {
          intervalMs: 0,
          describe: () =>
            `${JSON.stringify(t.ctx.chain.client.status())}\n` +
            lastScrape
              .split("\n")
              .filter((l) => l.startsWith("stablegate_node_"))
              .join("\n"),
        },
      );
      expect(
        sample(lastScrape, `stablegate_node_healthy{node="${serviceNode(1)}",state="failing",chain="tron"}`),
      ).toBe(0);
      expect(
        sample(lastScrape, `stablegate_node_head_block{node="${serviceNode(2)}",chain="tron"}`),
      ).toBeGreaterThan(0);

      const served = new Set([...lastScrape.matchAll(/^# TYPE (stablegate_[a-z0-9_]+) /gm)].map((m) => m[1]));
      const doc = readFileSync(join(ROOT, "docs/metrics.md"), "utf8");
      const documented = new Set([...doc.matchAll(/^\| `(stablegate_[a-z0-9_]+)` +\|/gm)].map((m) => m[1]));
      expect(served.size).toBeGreaterThanOrEqual(20);
      for (const name of ["stablegate_node_head_block", "stablegate_node_healthy", "stablegate_node_active"])
        expect(served, name).toContain(name);
      expect(
        [...served].filter((name) => !documented.has(name)),
        "served but not in docs/metrics.md",
      ).toEqual([]);
      expect(
        [...documented].filter((name) => !served.has(name)),
        "in docs/metrics.md but not served",
      ).toEqual([]);
    } finally {
      await t.devnet.listeners[1]?.start();
    }
  }, 120_000);
});
