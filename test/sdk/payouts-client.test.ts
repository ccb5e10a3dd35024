/**
 * The SDK's refunds and payouts against the real app over HTTP, with the devnet over HTTP behind
 * it: a real payment credits the balance; createPayout is idempotent on external_id and refuses
 * a conflict, an amount over the balance and a bad address with typed errors; createRefund with an
 * address and without (claim_url), never over what the order received; getPayout and listPayouts
 * (cursor paging, filters). Then an operator approves, the hot wallet sends, the block solidifies,
 * and the payout.completed and refund.completed webhooks reach a real node:http receiver through
 * the SDK's handler: verified and typed.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createClient,
  createNodeWebhookHandler,
  StablegateApiError,
  type Payout,
  type PayoutWebhookEvent,
  type StablegateClient,
  type WebhookEvent,
} from "@stablegate/sdk";
import { payouts, webhookDeliveries } from "../../src/db/schema.js";
import { buildApp } from "../../src/http/app.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { runDuePayouts } from "../../src/payouts/send-payouts.js";
import { createWebhookDeliverer, type WebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { adminCookie } from "../helpers/admin.js";
import { poll } from "../helpers/poll.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { registerSoftwarePasskey, stepUpPasskey } from "../helpers/software-passkey.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

const SECRET = "whsec-sdk-payouts";
let t: ChainTest;
let app: FastifyInstance;
let baseUrl: string;
let client: StablegateClient;
let cookie: string;
let receiver: Server;
let receiverUrl: string;
let deliverer: WebhookDeliverer;
const received: WebhookEvent[] = [];
let orderId: string;

async function newAddress(): Promise<string> {
  return (await TronWeb.createAccount()).address.base58 as string;
}

async function rejection(promise: Promise<unknown>): Promise<StablegateApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StablegateApiError);
  return error as StablegateApiError;
}

beforeAll(async () => {
  const hot = await TronWeb.createAccount();
  t = await startChainTest({
    env: {
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: await newAddress(),
      SWEEP_ENABLED: "false",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    },
  });
  await t.devnetPost("/devnet/fund", {
    address: hot.address.base58,
    trx: "1000",
    usdt: "1000",
    solidify: true,
  });
  await t.scanner.sync();
  app = await buildApp(t.ctx);
  baseUrl = await app.listen({ port: 0, host: "127.0.0.1" });
  cookie = await adminCookie(app);
  const { apiKey } = await createMerchant(t.ctx, { name: "SDK Payout Shop", webhookSecret: SECRET });
  client = createClient({ baseUrl, apiKey, baseDelayMs: 10 });
  const handler = createNodeWebhookHandler({
    secret: SECRET,
    // X-Timestamp comes from the app's clock, which this test moves forward past the waits.
    now: () => t.clock.now(),
    onEvent: (event) => {
      received.push(event);
    },
  });
  receiver = createServer((req, res) => void handler(req, res));
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  deliverer = createWebhookDeliverer(t.ctx, { timeoutMs: 5_000 });

  // A real payment of 100 USDT credits the merchant's balance.
  const order = await client.createPayment({
    external_id: "sdk-payout-order",
    amount: "100",
    currency: "USDT",
    callback_url: receiverUrl,
  });
  orderId = order.id;
  await t.pay(order.address, 100_000_000n);
  t.mine(1);
  await t.finalize();
  expect((await client.getPayment(order.id)).status).toBe("confirmed");
}, 180_000);

afterAll(async () => {
  await deliverer?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((done) => (receiver ? receiver.close(() => done()) : done()));
  await app?.close();
  await t?.close();
});

let payout: Payout;
let refund: Payout;
const payoutAddress = { value: "" };
const refundAddress = { value: "" };

describe("createPayout", () => {
  it("creates a payout pending approval, and the same external_id and fields answer the same payout", async () => {
    payoutAddress.value = await newAddress();
    const params = {
      external_id: "sdk-payout-1",
      amount: "12.5",
      address: payoutAddress.value,
      callback_url: receiverUrl,
      metadata: { affiliate: "a-7" },
    };
    payout = await client.createPayout(params);
    expect(payout).toMatchObject({
      kind: "payout",
      status: "pending_approval",
      external_id: "sdk-payout-1",
      amount: "12.500000",
      currency: "USDT",
      address: payoutAddress.value,
      metadata: { affiliate: "a-7" },
      tx_hash: null,
    });
    expect(await client.createPayout(params)).toEqual(payout);
  });

  it("throws typed errors: another payload for the external_id, over the balance, an invalid or own address", async () => {
    const conflict = await rejection(
      client.createPayout({ external_id: "sdk-payout-1", amount: "13", address: payoutAddress.value }),
    );
    expect([conflict.status, conflict.code]).toEqual([409, "EXTERNAL_ID_CONFLICT"]);
    const over = await rejection(
      client.createPayout({ external_id: "sdk-payout-2", amount: "1000", address: payoutAddress.value }),
    );
    expect([over.status, over.code]).toEqual([409, "INSUFFICIENT_BALANCE"]);
    const invalid = await rejection(
      client.createPayout({ external_id: "sdk-payout-3", amount: "1", address: "TNotAnAddress" }),
    );
    expect([invalid.status, invalid.code]).toEqual([400, "INVALID_ADDRESS"]);
    const own = await rejection(
      client.createPayout({ external_id: "sdk-payout-4", amount: "1", address: t.devnet.usdtContract }),
    );
    expect([own.status, own.code]).toEqual([400, "ADDRESS_NOT_ALLOWED"]);
    expect(await t.ctx.db.select({ id: payouts.id }).from(payouts)).toHaveLength(1);
  });
});

describe("createRefund", () => {
  it("refunds to an address, or answers a claim_url without one; never more than the order received", async () => {
    refundAddress.value = await newAddress();
    refund = await client.createRefund(orderId, {
      amount: "20",
      address: refundAddress.value,
      reason: "overpaid by 20",
      callback_url: receiverUrl,
    });
    expect(refund).toMatchObject({
      kind: "refund",
      status: "pending_approval",
      order_id: orderId,
      amount: "20.000000",
      address: refundAddress.value,
      reason: "overpaid by 20",
    });
    const claim = await client.createRefund(orderId, { amount: "30" });
    expect(claim).toMatchObject({ status: "awaiting_address", address: null });
    expect(claim.claim_url).toMatch(/\/refund\/[A-Za-z0-9_-]{20,}$/);
    // 100 received, 50 refunded or being refunded: 50.000001 more is too much.
    const over = await rejection(client.createRefund(orderId, { amount: "50.000001" }));
    expect([over.status, over.code]).toEqual([409, "REFUND_EXCEEDS_RECEIVED"]);
    const missing = await rejection(
      client.createRefund("0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15", { amount: "1" }),
    );
    expect([missing.status, missing.code]).toEqual([404, "NOT_FOUND"]);
  });
});

describe("getPayout and listPayouts", () => {
  it("reads one, and walks every page of the list with filters", async () => {
    expect(await client.getPayout(payout.id)).toEqual(payout);
    const unknown = await rejection(client.getPayout("0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15"));
    expect([unknown.status, unknown.code]).toEqual([404, "NOT_FOUND"]);
    const all: Payout[] = [];
    for await (const item of client.listPayouts({ pageSize: 1 })) all.push(item);
    expect(all.map((p) => p.kind).sort()).toEqual(["payout", "refund", "refund"]);
    expect(new Set(all.map((p) => p.id)).size).toBe(3);
    const refunds: Payout[] = [];
    for await (const item of client.listPayouts({ kind: "refund", order_id: orderId })) refunds.push(item);
    expect(refunds.map((p) => p.status).sort()).toEqual(["awaiting_address", "pending_approval"]);
    const waiting: Payout[] = [];
    for await (const item of client.listPayouts({ status: "awaiting_address" })) waiting.push(item);
    expect(waiting).toHaveLength(1);
  });
});

describe("webhooks of refunds and payouts", () => {
  it("approved, sent and solidified: payout.completed and refund.completed arrive verified and typed", async () => {
    // Every approver gives a second factor: the owner approves with a passkey.
    const ownerKey = await registerSoftwarePasskey(app, cookie, t.ctx.config.publicBaseUrl, {
      currentPassword: TEST_ADMIN_PASSWORD,
    });
    for (const id of [payout.id, refund.id]) {
      const approved = await app.inject({
        method: "POST",
        url: `/api/v1/admin/payouts/${id}/approve`,
        headers: { cookie },
        payload: { passkey: await stepUpPasskey(app, cookie, ownerKey) },
      });
      expect(approved.statusCode, approved.body).toBe(200);
    }
    const done = await poll(
      "the payout and the refund completed",
      async () => {
        await runDuePayouts(t.ctx);
        t.devnet.mine(SOLIDIFY_AFTER + 1);
        t.clock.advance(60_000);
        const [a, b] = await Promise.all([client.getPayout(payout.id), client.getPayout(refund.id)]);
        return a.status === "completed" && b.status === "completed" ? [a, b] : undefined;
      },
      {
        timeoutMs: 120_000,
        describe: () => t.ctx.db.select({ status: payouts.status, error: payouts.lastError }).from(payouts),
      },
    );
    expect(await usdtBalance(t.devnet, payoutAddress.value)).toBe(12_500_000n);
    expect(await usdtBalance(t.devnet, refundAddress.value)).toBe(20_000_000n);

    const events = await poll(
      "both webhooks at the receiver",
      async () => {
        await deliverer.deliverDue();
        const ours = received.filter((e): e is PayoutWebhookEvent => "payout_id" in e);
        return ours.length >= 2 ? ours : undefined;
      },
      {
        timeoutMs: 60_000,
        describe: async () => ({
          received: received.map((e) => e.event),
          deliveries: await t.ctx.db
            .select({
              event: webhookDeliveries.event,
              status: webhookDeliveries.status,
              error: webhookDeliveries.lastError,
              code: webhookDeliveries.lastStatusCode,
            })
            .from(webhookDeliveries),
        }),
      },
    );
    const byKind = Object.fromEntries(events.map((e) => [e.event, e]));
    expect(byKind["payout.completed"]).toMatchObject({
      payout_id: payout.id,
      kind: "payout",
      external_id: "sdk-payout-1",
      order_id: null,
      amount: "12.500000",
      address: payoutAddress.value,
      status: "completed",
      tx_hash: done[0]?.tx_hash,
    });
    expect(byKind["refund.completed"]).toMatchObject({
      payout_id: refund.id,
      kind: "refund",
      order_id: orderId,
      amount: "20.000000",
      status: "completed",
      tx_hash: done[1]?.tx_hash,
    });
    // The union narrows on `event`: a payout event has payout_id, no amount_expected.
    const first = events[0];
    if (first?.event === "payout.completed" || first?.event === "refund.completed") {
      const id: string = first.payout_id;
      expect(id).toBeTruthy();
    }
    const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, payout.id));
    expect(row?.status).toBe("completed");
  }, 240_000);
});
