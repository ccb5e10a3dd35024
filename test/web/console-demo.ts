/**
 * A demo run that fills every page of the console: a merchant with orders paid exactly, under and
 * over (webhooks delivered to a real receiver answering 200), an order whose webhook receiver
 * answers 500, an underpaid order not yet delivered, a pending order, a refund waiting for the
 * payer's address, payouts sent and waiting for approval, a stray transfer and static deposit
 * addresses with deposits. All payments are real USDT transfers on the devnet, scanned and confirmed.
 */
import type { AddressInfo } from "node:net";
import { desc, eq } from "drizzle-orm";
import { addresses, strayTransfers } from "../../src/db/schema.js";
import { createDepositAddress } from "../../src/deposits/create-deposit-address.js";
import { buildApp, type App } from "../../src/http/app.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { createOrder } from "../../src/payments/create-order.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { createWebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";
import { adminCookie } from "../helpers/admin.js";
import { createOperatorViaApi, enrolTotp, operatorCookie, totpAt } from "../helpers/operators.js";
import { newTronAccount, sendPayoutUntil } from "../helpers/payout-chain.js";
import { startReceiver, type Receiver } from "../webhooks/fixtures.js";

const USDT = 1_000_000n;

export interface ConsoleDemo {
  t: ChainTest;
  app: App;
  base: string;
  merchantId: string;
  orders: { exact: string; under: string; over: string; failing: string; underOpen: string; pending: string };
  payouts: { sent: string; waiting: string };
  refund: { id: string; claimPath: string };
  strayId: string;
  strayTxHash: string;
  depositAddressId: string;
  close(): Promise<void>;
}

export async function startConsoleDemo(): Promise<ConsoleDemo> {
  const hot = await newTronAccount();
  const cold = await newTronAccount();
  const t = await startChainTest({
    env: {
      HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      COLD_WALLET_ADDRESS: cold.address,
      SWEEP_ENABLED: "false",
    },
  });
  t.clock.set(new Date());
  await t.devnetPost("/devnet/fund", { address: hot.address, trx: "1000", usdt: "100", solidify: true });
  await t.scanner.sync();
  const ok = await startReceiver();
  const failing = await startReceiver(() => ({ kind: "status", status: 500, body: "internal error" }));
  const app = await buildApp(t.ctx);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  const { merchant, apiKey } = await createMerchant(t.ctx, {
    name: "Northwind Coffee",
    webhookSecret: "whsec-northwind-demo",
  });
  const order = async (externalId: string, amount: string, hook: Receiver, paid: bigint | null) => {
    const { order: created } = await createOrder(
      t.ctx,
      { id: merchant.id },
      { externalId, amount, currency: "USDT", callbackUrl: hook.url },
    );
    if (paid !== null) await t.pay(created.address, paid);
    return created.id;
  };
  const exact = await order("NW-1001", "60", ok, 60n * USDT);
  const under = await order("NW-1002", "10", ok, 9_500_000n);
  const over = await order("NW-1003", "10", ok, 12_250_000n);
  const failingOrder = await order("NW-1004", "15", failing, 15n * USDT);
  t.mine(1);
  await t.finalize();
  const deliverer = createWebhookDeliverer(t.ctx);
  try {
    await deliverer.deliverDue();
  } finally {
    await deliverer.close();
  }
  const underOpen = await order("NW-1005", "20", ok, 12_350_000n);
  const pending = await order("NW-1006", "42.5", ok, null);
  t.mine(1);
  await t.finalize();

  const http = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const reply = (await response.json()) as Record<string, unknown>;
    if (response.status >= 300)
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(reply)}`);
    return reply;
  };
  const merchantApi = (method: string, path: string, body?: unknown) =>
    http(method, path, { "x-api-key": apiKey }, body);

  // A refund waiting for the payer's address, and payouts: one sent on chain, one waiting.
  const refund = await merchantApi("POST", `/api/v1/payments/${exact}/refunds`, { amount: "2" });
  const owner = await adminCookie(app);
  await createOperatorViaApi(app, owner, { email: "approver@northwind.example", role: "admin" });
  const secret = (
    await enrolTotp(app, await operatorCookie(app, "approver@northwind.example"), () => t.clock.now())
  ).secret;
  const freshCode = () => {
    t.clock.advance(31_000);
    return totpAt(secret, t.clock.now());
  };
  const approver = await operatorCookie(app, "approver@northwind.example", { totpCode: freshCode() });
  const payout = async (externalId: string, amount: string) =>
    (
      await merchantApi("POST", "/api/v1/payouts", {
        external_id: externalId,
        amount,
        address: (await newTronAccount()).address,
      })
    ).id as string;
  const sent = await payout("PO-2001", "4");
  await http(
    "POST",
    `/api/v1/admin/payouts/${sent}/approve`,
    { cookie: approver },
    { totp_code: freshCode() },
  );
  await sendPayoutUntil(t, sent, ["completed"]);
  const waiting = await payout("PO-2002", "3");

  // A stray: USDT to a pool address never handed out.
  await fillAddressPool(t.ctx);
  const [spare] = await t.ctx.db
    .select()
    .from(addresses)
    .where(eq(addresses.status, "free"))
    .orderBy(desc(addresses.derivationIndex))
    .limit(1);
  if (!spare) throw new Error("no free address for the stray");
  const strayTxHash = await t.pay(spare.address, 4n * USDT);

  // Static deposit addresses, one with two deposits.
  const depositHook = ok.url;
  const { depositAddress: alice } = await createDepositAddress(t.ctx, merchant.id, {
    customerRef: "alice",
    callbackUrl: depositHook,
  });
  await createDepositAddress(t.ctx, merchant.id, { customerRef: "bob", callbackUrl: depositHook });
  await t.pay(alice.address, 7n * USDT);
  t.mine(1);
  await t.pay(alice.address, 250_000n);
  t.mine(1);
  await t.finalize();
  const [stray] = await t.ctx.db
    .select()
    .from(strayTransfers)
    .where(eq(strayTransfers.toAddress, spare.address));
  if (!stray) throw new Error("the stray transfer was not recorded");

  return {
    t,
    app,
    base,
    merchantId: merchant.id,
    orders: { exact, under, over, failing: failingOrder, underOpen, pending },
    payouts: { sent, waiting },
    refund: { id: refund.id as string, claimPath: new URL(refund.claim_url as string).pathname },
    strayId: stray.id,
    strayTxHash,
    depositAddressId: alice.id,
    async close() {
      await app.close();
      await ok.close();
      await failing.close();
      await t.close();
    },
  };
}
