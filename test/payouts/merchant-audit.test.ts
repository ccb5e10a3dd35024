/**
 * Refunds and payouts created through the merchant API are audit rows (DESIGN.md 12): in the
 * creation's transaction, the actor the merchant named by its API key prefix, the key itself
 * nowhere in the row; an idempotent replay and a refusal write none. Real HTTP app, the devnet over
 * HTTP for the payment that makes the balance, PGlite or PostgreSQL (TEST_DATABASE_URL).
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { verifyAudit } from "../../src/audit/verify-audit.js";
import { buildApp } from "../../src/http/app.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";

let t: ChainTest;
let app: FastifyInstance;
let apiKey: string;
let prefix: string;
let merchantId: string;

type AuditRow = {
  actor_kind: string;
  actor_id: string | null;
  actor_label: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  after: Record<string, unknown> | null;
  reason: string | null;
  ip: string | null;
  user_agent: string | null;
  whole: string;
};

const auditRows = () =>
  queryRows<AuditRow>(
    t.ctx.db,
    sql`SELECT actor_kind, actor_id, actor_label, action, target_type, target_id, after, reason, ip,
               user_agent, row_to_json(a)::text AS whole
        FROM audit_log a WHERE action IN ('payout.create', 'refund.create') ORDER BY seq`,
  );

const post = (url: string, payload: Record<string, unknown>) =>
  app.inject({
    method: "POST",
    url,
    headers: { "x-api-key": apiKey, "user-agent": "shop-backend/1.0" },
    payload,
    remoteAddress: "10.9.8.7",
  });

beforeAll(async () => {
  t = await startChainTest({
    env: { HOT_WALLET_PRIVATE_KEY: (await TronWeb.createAccount()).privateKey, SWEEP_ENABLED: "false" },
  });
  await t.scanner.sync();
  app = await buildApp(t.ctx);
  await app.ready();
  const created = await createMerchant(t.ctx, { name: "Audited Shop", webhookSecret: "whsec-audit" });
  apiKey = created.apiKey;
  prefix = created.merchant.apiKeyPrefix;
  merchantId = created.merchant.id;
}, 120_000);
afterAll(async () => {
  await app?.close();
  await t?.close();
});

it("a merchant-API payout and refund write one audit row each, actor the key prefix, never the key", async () => {
  const order = await post("/api/v1/payments", {
    external_id: "audit-order",
    amount: "50",
    currency: "USDT",
    callback_url: "https://shop.example.com/cb",
  });
  expect(order.statusCode).toBe(201);
  const { id: orderId, address } = order.json() as { id: string; address: string };
  await t.pay(address, 50_000_000n);
  t.mine(1);
  await t.finalize();

  const recipient = (await TronWeb.createAccount()).address.base58 as string;
  const payoutBody = { external_id: "audit-payout-1", amount: "10", address: recipient };
  const payout = await post("/api/v1/payouts", payoutBody);
  expect(payout.statusCode, payout.body).toBe(201);
  const refund = await post(`/api/v1/payments/${orderId}/refunds`, { amount: "5", reason: "overpaid" });
  expect(refund.statusCode, refund.body).toBe(201);
  const before = await auditRows();
  expect(before).toHaveLength(2);

  // A replay of the payout and refusals change nothing, the audit log included.
  expect((await post("/api/v1/payouts", payoutBody)).statusCode).toBe(200);
  expect((await post("/api/v1/payouts", { ...payoutBody, amount: "11" })).statusCode).toBe(409);
  expect(
    (await post("/api/v1/payouts", { external_id: "audit-payout-2", amount: "1000", address: recipient }))
      .statusCode,
  ).toBe(409);
  expect((await post(`/api/v1/payments/${orderId}/refunds`, { amount: "45.000001" })).statusCode).toBe(409);
  expect(await auditRows()).toEqual(before);

  const [payoutRow, refundRow] = before;
  expect(prefix.length).toBeGreaterThan(0);
  expect(payoutRow).toMatchObject({
    actor_kind: "merchant",
    actor_id: merchantId,
    actor_label: prefix,
    action: "payout.create",
    target_type: "payout",
    target_id: payout.json().id,
    after: {
      status: "pending_approval",
      external_id: "audit-payout-1",
      amount: "10.000000",
      address: recipient,
    },
    ip: "10.9.8.7",
    user_agent: "shop-backend/1.0",
  });
  expect(refundRow).toMatchObject({
    actor_kind: "merchant",
    actor_label: prefix,
    action: "refund.create",
    target_type: "refund",
    target_id: refund.json().id,
    after: { status: "awaiting_address", order_id: orderId, amount: "5.000000", address: null },
    reason: "overpaid",
  });
  for (const row of before) {
    expect(row.whole).not.toContain(apiKey);
    // nor the part of the key after its prefix
    expect(row.whole).not.toContain(apiKey.slice(prefix.length));
  }
  // The hash chain still verifies with the new rows in it.
  expect((await verifyAudit(t.ctx.db)).broken).toBeNull();
}, 180_000);
