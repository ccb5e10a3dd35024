import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { buildApp } from "../../src/http/app.js";
import { queryRows } from "../../src/db/query-rows.js";
import { createDepositAddress } from "../../src/deposits/create-deposit-address.js";
import { setDepositAddressStatus } from "../../src/deposits/set-deposit-address-status.js";
import { depositEvents, deposits } from "../../src/db/schema.js";
import { getStats } from "../../src/stats/get-stats.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { checkLedger } from "../../src/ledger/check-ledger.js";
import { getMerchantBalance } from "../../src/ledger/post-ledger.js";
import { createWebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { verifyWebhook } from "@stablegate/sdk/verify-webhook";
import type { DepositWebhookPayload } from "@stablegate/sdk/webhook-payload";
import { chainTransfers, startChainTest, type ChainTest } from "../chain/helpers.js";
import { adminCookie } from "../helpers/admin.js";
import { startReceiver, type Receiver } from "./helpers.js";

const USDT = 1_000_000n;
const SECRET = "whsec-chain-test";

let t: ChainTest;
let receiver: Receiver;
let app: FastifyInstance;
let cookie: string;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startChainTest({ env: { DEPOSIT_MIN_USDT: "1", SWEEP_ENABLED: "false" } });
  await t.scanner.sync();
  app = await buildApp(t.ctx);
  await app.ready();
  cookie = await adminCookie(app);
});
afterAll(async () => {
  await app?.close();
  await t.close();
  await receiver.close();
});

async function depositRows(depositAddressId: string) {
  return t.ctx.db
    .select()
    .from(deposits)
    .where(eq(deposits.depositAddressId, depositAddressId))
    .orderBy(asc(deposits.blockNumber), asc(deposits.logIndex), asc(deposits.createdAt));
}

/** Delivers every due webhook to the receiver; returns the verified payloads received so far. */
async function deliverAll(): Promise<{ payload: DepositWebhookPayload; key: string }[]> {
  const deliverer = createWebhookDeliverer(t.ctx, { timeoutMs: 5000 });
  try {
    for (let i = 0; i < 10; i++) if ((await deliverer.deliverDue(100)).length === 0) break;
  } finally {
    await deliverer.close();
  }
  return receiver.received.map((r) => {
    const verified = verifyWebhook(r.body, r.headers, SECRET, { toleranceSeconds: 0 });
    if (!verified.ok) throw new Error(`webhook not verified: ${verified.reason}`);
    return {
      payload: verified.payload as unknown as DepositWebhookPayload,
      key: String(r.headers["x-idempotency-key"]),
    };
  });
}

describe("deposits to one static address", () => {
  it("reports three in a row, one below the minimum, one a fork drops and one after disabling, each once", async () => {
    const { depositAddress: da } = await createDepositAddress(t.ctx, t.merchantId, {
      customerRef: "player-7",
      callbackUrl: receiver.url,
      notifyDetected: true,
    });
    const startBlock = (await t.cursor()) ?? 0;

    // Three in a row, in three blocks.
    const paid: string[] = [];
    for (const amount of [5n, 6n, 7n]) {
      paid.push(await t.pay(da.address, amount * USDT));
      t.mine(1);
    }
    await t.scanner.sync();
    let rows = await depositRows(da.id);
    expect(rows.map((r) => [r.txHash, r.status, r.amount])).toEqual([
      [paid[0], "detected", 5n * USDT],
      [paid[1], "detected", 6n * USDT],
      [paid[2], "detected", 7n * USDT],
    ]);
    await t.finalize();
    rows = await depositRows(da.id);
    expect(
      rows.every((r) => r.status === "confirmed" && !r.belowMinimum && r.addressStatus === "active"),
    ).toBe(true);

    // One below DEPOSIT_MIN_USDT: credited and flagged.
    const small = await t.pay(da.address, 500_000n);
    t.mine(1);
    await t.finalize();

    // One in a block that a fork drops: detected (and reported as detected), never confirmed.
    const forked = await t.pay(da.address, 9n * USDT);
    t.mine(1);
    await t.scanner.sync();
    expect((await depositRows(da.id)).find((r) => r.txHash === forked)?.status).toBe("detected");
    await deliverAll();
    const fork = await t.devnetPost<{ dropped: { transactions: string[] }[] }>("/devnet/fork", { depth: 1 });
    expect(fork.dropped.flatMap((b) => b.transactions)).toContain(forked);
    await t.scanner.sync();
    await t.finalize();
    expect((await depositRows(da.id)).find((r) => r.txHash === forked)).toMatchObject({
      status: "reverted",
      revertedAt: expect.any(Date),
    });

    // One after the address was disabled: credited, flagged, and an incident.
    await setDepositAddressStatus(t.ctx, t.merchantId, da.id, "disabled");
    const late = await t.pay(da.address, 2n * USDT);
    t.mine(1);
    await t.scanner.sync();
    // Detected only: a fork may still drop it, so no operator alert yet.
    expect((await evaluateAlerts(t.ctx)).fired).not.toContain("deposit_to_disabled_address");
    await t.finalize();

    rows = await depositRows(da.id);
    const byTx = new Map(rows.map((r) => [r.txHash, r]));
    expect(byTx.get(small)).toMatchObject({
      status: "confirmed",
      belowMinimum: true,
      addressStatus: "active",
    });
    expect(byTx.get(late)).toMatchObject({
      status: "confirmed",
      belowMinimum: false,
      addressStatus: "disabled",
    });
    const incidents = await t.ctx.db
      .select()
      .from(depositEvents)
      .where(eq(depositEvents.eventType, "deposit_to_disabled_address"));
    expect(incidents.map((e) => e.depositId)).toEqual([byTx.get(late)?.id]);
    // The incident reaches the operator: an alert once confirmed (once), and the incidents list.
    const fired = (await evaluateAlerts(t.ctx)).fired;
    expect(fired.filter((a) => a === "deposit_to_disabled_address")).toHaveLength(1);
    expect((await evaluateAlerts(t.ctx)).fired).not.toContain("deposit_to_disabled_address");
    const alerts = await queryRows<{ text: string; details: Record<string, unknown>; severity: string }>(
      t.ctx.db,
      sql`SELECT text, details, severity FROM alerts WHERE alert = 'deposit_to_disabled_address'`,
    );
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.severity).toBe("warning");
    expect(alerts[0]?.text).toContain(da.address);
    expect(alerts[0]?.text).toContain("2.000000");
    expect(alerts[0]?.details).toMatchObject({
      deposit_id: byTx.get(late)?.id,
      deposit_address_id: da.id,
      customer_ref: "player-7",
      tx_hash: late,
    });
    const listed = await app.inject({ method: "GET", url: "/api/v1/admin/incidents", headers: { cookie } });
    expect(listed.statusCode).toBe(200);
    const reply = listed.json<Record<string, unknown>>();
    expect(Object.keys(reply).sort()).toEqual([
      "data",
      "deposits_to_disabled_addresses",
      "failing_webhooks",
      "stray_transfers",
    ]);
    expect(reply.deposits_to_disabled_addresses).toEqual([
      expect.objectContaining({
        id: byTx.get(late)?.id,
        deposit_address_id: da.id,
        merchant_id: t.merchantId,
        customer_ref: "player-7",
        tx_hash: late,
        amount: "2.000000",
        status: "confirmed",
        address_status: "disabled",
      }),
    ]);

    // The webhooks: every confirmed deposit exactly once as deposit.confirmed, signed; the forked
    // one only ever as deposit.detected.
    const hooks = await deliverAll();
    const confirmedHooks = hooks.filter((h) => h.payload.event === "deposit.confirmed");
    expect(confirmedHooks.map((h) => h.payload.tx_hash).sort()).toEqual(
      [paid[0], paid[1], paid[2], small, late].sort(),
    );
    expect(new Set(confirmedHooks.map((h) => h.key)).size).toBe(5);
    expect(hooks.filter((h) => h.payload.tx_hash === forked).map((h) => h.payload.event)).toEqual([
      "deposit.detected",
    ]);
    const lateHook = confirmedHooks.find((h) => h.payload.tx_hash === late)?.payload;
    expect(lateHook).toEqual({
      event: "deposit.confirmed",
      deposit_id: byTx.get(late)?.id,
      deposit_address_id: da.id,
      customer_ref: "player-7",
      amount: "2.000000",
      currency: "USDT",
      chain: "tron",
      network: "devnet",
      tx_hash: late,
      from_address: t.devnet.faucetAddress,
      to_address: da.address,
      status: "confirmed",
      confirmations: expect.any(Number),
      below_minimum: false,
      address_status: "disabled",
      timestamp: expect.any(String),
    });
    expect(lateHook?.confirmations).toBeGreaterThanOrEqual(t.ctx.config.confirmations);
    expect(confirmedHooks.find((h) => h.payload.tx_hash === small)?.payload).toMatchObject({
      amount: "0.500000",
      below_minimum: true,
      address_status: "active",
    });
    for (const h of confirmedHooks)
      expect(h.key).toBe(`evt_${h.payload.deposit_id}_deposit.confirmed_${Date.parse(h.payload.timestamp)}`);

    // Against the chain: every USDT transfer to the address is exactly one deposit that is not reverted.
    const head = (await t.cursor()) ?? 0;
    const onChain = await chainTransfers(t, new Set([da.address]), startBlock, head);
    const recorded = (await depositRows(da.id))
      .filter((r) => r.status !== "reverted")
      .map((r) => `${r.txHash}:${r.logIndex}`)
      .sort();
    expect(recorded).toEqual(onChain);

    // The admin stats and the rollups.
    const stats = await getStats(t.ctx);
    expect(stats.deposits.total).toEqual({ deposit_count: 5, total_received: "20.500000" });
    expect(stats.deposits.today).toEqual({ deposit_count: 5, total_received: "20.500000" });
    expect(await checkRollups(t.ctx.db)).toEqual([]);

    // The merchant's ledger balance holds every confirmed deposit, and check-ledger agrees.
    expect(await getMerchantBalance(t.ctx.db, t.merchantId)).toMatchObject({ available: 20_500_000n });
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});
