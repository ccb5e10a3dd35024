/**
 * Refunds and payouts name their chain and currency (DESIGN.md 14 and 16), and their destination is
 * checked for that chain: the deployment runs tron and ethereum (the Anvil devnet over HTTP, its
 * USDT and USDC contracts). Defaults keep today's integrations (tron, USDT); a pair the deployment
 * does not enable is 400 UNSUPPORTED_CURRENCY; an EVM destination must be well formed (EIP-55 where
 * mixed case) and not ours (hot or cold wallet, a token contract, a derived address); every refusal
 * changes nothing. Replies, the claim page and webhook payloads carry chain and currency.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { getAddress, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { creditMerchant } from "../../src/ledger/post-ledger.js";
import { buildPayoutWebhookPayload } from "../../src/payouts/payout-webhooks.js";
import { claimDuePayouts } from "../../src/payouts/payout-store.js";
import { getPayout } from "../../src/payouts/read-payouts.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmDevnetForFile } from "../helpers/evm-devnet.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

const devnet = evmDevnetForFile();
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
const cold = Wallet.createRandom().address;
const recipient = Wallet.createRandom().address; // EIP-55 checksummed
const TRON_RECIPIENT = "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8";

let t: TestApp;
let shop: TestMerchant;

beforeAll(async () => {
  const d = devnet();
  t = await createTestApp({
    env: {
      CHAINS: "tron,ethereum",
      ETHEREUM_NETWORK: "devnet",
      ETHEREUM_RPC_URL: d.rpcUrl,
      ETHEREUM_USDT_CONTRACT: d.usdtContract,
      ETHEREUM_USDC_CONTRACT: d.usdcContract,
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: cold,
    },
  });
  shop = await addMerchant(t.ctx, "Chains Shop");
  // The balance is per currency: seed both, since these payouts draw USDT and USDC.
  for (const currency of ["USDT", "USDC"] as const) {
    await creditMerchant(t.ctx.db, {
      merchantId: shop.id,
      currency,
      amount: 1_000_000_000n,
      kind: "payment_received",
      refType: "test",
      refId: `seed-${currency}`,
    });
  }
});
afterAll(async () => {
  await t?.close();
});

const post = (url: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: "POST", url, headers: { "x-api-key": shop.apiKey }, payload });
const payout = (patch: Record<string, unknown>) =>
  post("/api/v1/payouts", {
    external_id: `po-${randomBytes(6).toString("hex")}`,
    amount: "1.5",
    address: TRON_RECIPIENT,
    ...patch,
  });

async function counts() {
  const [row] = await queryRows<{ payouts: number; postings: number }>(
    t.ctx.db,
    sql`SELECT (SELECT count(*) FROM payouts)::int AS payouts, (SELECT count(*) FROM ledger_postings)::int AS postings`,
  );
  return row;
}

describe("chain and currency on payouts", () => {
  it("defaults to tron and USDT, and says so in the reply", async () => {
    const res = await payout({});
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      chain: "tron",
      currency: "USDT",
      network: "devnet",
      address: TRON_RECIPIENT,
    });
  });

  it("pays USDC on ethereum: stored lowercase, shown EIP-55, the chain's network", async () => {
    const res = await payout({ chain: "ethereum", currency: "USDC", address: recipient.toLowerCase() });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      chain: "ethereum",
      currency: "USDC",
      network: "devnet",
      address: recipient,
    });
    const [row] = await queryRows<{ chain: string; currency: string; address: string }>(
      t.ctx.db,
      sql`SELECT chain, currency, address FROM payouts WHERE id = ${res.json().id}::uuid`,
    );
    expect(row).toEqual({ chain: "ethereum", currency: "USDC", address: recipient.toLowerCase() });
  });

  it("replays the same request (address in any case) and refuses another chain or currency", async () => {
    const body = { external_id: "po-replay", chain: "ethereum", currency: "USDT", address: recipient };
    const first = await payout(body);
    expect(first.statusCode).toBe(201);
    const again = await payout({ ...body, address: recipient.toLowerCase() });
    expect([again.statusCode, again.json().id]).toEqual([200, first.json().id]);
    for (const patch of [{ currency: "USDC" }, { chain: "tron", address: TRON_RECIPIENT }]) {
      const conflict = await payout({ ...body, ...patch });
      expect([conflict.statusCode, conflict.json().code]).toEqual([409, "EXTERNAL_ID_CONFLICT"]);
    }
  });

  const unsupported: [string, Record<string, unknown>][] = [
    ["USDC on tron", { chain: "tron", currency: "USDC" }],
    ["a chain not enabled (base)", { chain: "base", currency: "USDC", address: recipient }],
    ["an unknown chain", { chain: "solana" }],
    ["an unknown currency", { chain: "ethereum", currency: "EUR", address: recipient }],
  ];
  it.each(unsupported)("refuses %s with 400 UNSUPPORTED_CURRENCY, changing nothing", async (_n, patch) => {
    const before = await counts();
    const res = await payout(patch);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: expect.any(String), code: "UNSUPPORTED_CURRENCY" });
    expect(await counts()).toEqual(before);
  });
});

describe("destinations checked for the chain", () => {
  const badChecksum = () => {
    // Flip the case of one letter of a correct EIP-55 address: a wrong checksum.
    const i = [...recipient].findIndex((c, k) => k > 1 && /[a-fA-F]/.test(c));
    const c = recipient[i] as string;
    return (
      recipient.slice(0, i) +
      (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) +
      recipient.slice(i + 1)
    );
  };

  it("accepts all-lowercase and all-uppercase EVM addresses, as wallets do", async () => {
    const upper = "0x" + recipient.slice(2).toUpperCase();
    const res = await payout({ chain: "ethereum", currency: "USDT", address: upper });
    expect(res.statusCode).toBe(201);
    expect(res.json().address).toBe(recipient);
  });

  it("refuses bad formats, wrong families and our own addresses with clear codes, changing nothing", async () => {
    const d = devnet();
    const derived = t.ctx.chains
      .get("ethereum")
      ?.derivation.deriveAddress(t.ctx.config.evmWallet.xpub ?? "", 5, 0);
    expect(derived).toMatch(/^0x[0-9a-f]{40}$/);
    await t.ctx.db.execute(
      sql`INSERT INTO addresses (family, derivation_index, address, status, created_at) VALUES ('evm', 900000, ${derived}, 'free', now())`,
    );
    const cases: [string, string, string, string][] = [
      ["ethereum", badChecksum(), "INVALID_ADDRESS", "EIP-55"],
      ["ethereum", "0x1234", "INVALID_ADDRESS", "ethereum"],
      ["ethereum", TRON_RECIPIENT, "INVALID_ADDRESS", "ethereum"], // another family's address
      ["tron", recipient, "INVALID_ADDRESS", "base58check"],
      ["ethereum", hot.address, "ADDRESS_NOT_ALLOWED", "hot wallet"],
      ["ethereum", cold.toLowerCase(), "ADDRESS_NOT_ALLOWED", "cold wallet"],
      ["ethereum", getAddress(d.usdtContract), "ADDRESS_NOT_ALLOWED", "USDT contract"],
      ["ethereum", d.usdcContract.toLowerCase(), "ADDRESS_NOT_ALLOWED", "USDC contract"],
      ["ethereum", getAddress(derived ?? ""), "ADDRESS_NOT_ALLOWED", "deposit address"],
    ];
    for (const [chain, address, code, says] of cases) {
      const before = await counts();
      const res = await payout({ chain, currency: "USDT", address });
      expect([chain, address, res.statusCode, res.json().code]).toEqual([chain, address, 400, code]);
      expect(res.json().error).toContain(says);
      expect(await counts()).toEqual(before);
    }
  });
});

describe("refunds on the order's chain and currency", () => {
  async function paidTronOrder(): Promise<string> {
    const created = await postOrder(t, shop.apiKey, orderBody({ chain: "tron", currency: "USDT" }));
    expect(created.statusCode).toBe(201);
    // The order's payment is the TRON tests' subject; here it only has to have received 10.5.
    await t.ctx.db.execute(
      sql`UPDATE orders SET amount_received = 10500000, status = 'confirmed' WHERE id = ${created.json().id}::uuid`,
    );
    return created.json().id as string;
  }

  it("goes back on the order's chain by default, or on another chain of its currency, never in another currency", async () => {
    const orderId = await paidTronOrder();
    const url = `/api/v1/payments/${orderId}/refunds`;
    const same = await post(url, { amount: "1", address: TRON_RECIPIENT });
    expect([same.statusCode, same.json().chain, same.json().currency]).toEqual([201, "tron", "USDT"]);
    const other = await post(url, { amount: "1", chain: "ethereum", address: recipient });
    expect([other.statusCode, other.json().chain, other.json().currency]).toEqual([201, "ethereum", "USDT"]);
    const before = await counts();
    const usdc = await post(url, { amount: "1", currency: "USDC", address: TRON_RECIPIENT });
    expect([usdc.statusCode, usdc.json().code]).toEqual([400, "UNSUPPORTED_CURRENCY"]);
    const wrongFamily = await post(url, { amount: "1", address: recipient });
    expect([wrongFamily.statusCode, wrongFamily.json().code]).toEqual([400, "INVALID_ADDRESS"]);
    expect(await counts()).toEqual(before);
  });

  it("asks the payer for an address on the refund's chain", async () => {
    const orderId = await paidTronOrder();
    const created = await post(`/api/v1/payments/${orderId}/refunds`, { amount: "2", chain: "ethereum" });
    expect(created.statusCode).toBe(201);
    const token = String(created.json().claim_url).split("/refund/")[1];
    const claimUrl = `/api/v1/refund-claims/${token}`;
    const view = await t.app.inject({ method: "GET", url: claimUrl });
    expect(view.json()).toMatchObject({
      chain: "ethereum",
      currency: "USDT",
      address_format: expect.stringContaining("EIP-55"),
    });
    const tron = await t.app.inject({ method: "POST", url: claimUrl, payload: { address: TRON_RECIPIENT } });
    expect([tron.statusCode, tron.json().code]).toEqual([400, "INVALID_ADDRESS"]);
    const ours = await t.app.inject({ method: "POST", url: claimUrl, payload: { address: hot.address } });
    expect([ours.statusCode, ours.json().code]).toEqual([400, "ADDRESS_NOT_ALLOWED"]);
    const ok = await t.app.inject({
      method: "POST",
      url: claimUrl,
      payload: { address: recipient.toLowerCase() },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ status: "pending_approval", chain: "ethereum", address: recipient });
  });
});

describe("the TRON sender", () => {
  it("claims only tron payouts", async () => {
    const onTron = (await payout({})).json().id as string;
    const onEthereum = (await payout({ chain: "ethereum", currency: "USDC", address: recipient })).json()
      .id as string;
    await t.ctx.db.execute(
      sql`UPDATE payouts SET status = 'approved', approved_at = now() WHERE id IN (${onTron}::uuid, ${onEthereum}::uuid)`,
    );
    const claimed = await claimDuePayouts(t.ctx, "test-sender", 1000, 60_000);
    expect(claimed).toContain(onTron);
    expect(claimed).not.toContain(onEthereum);
  });
});

describe("webhook payloads", () => {
  it("carry chain, currency, the chain's network and the display address", async () => {
    const res = await payout({ chain: "ethereum", currency: "USDC", address: recipient });
    const row = await getPayout(t.ctx, res.json().id);
    const payload = buildPayoutWebhookPayload(
      t.ctx,
      { ...row, status: "completed" },
      "payout.completed",
      new Date(0),
    );
    expect(payload).toMatchObject({
      chain: "ethereum",
      currency: "USDC",
      network: "devnet",
      address: recipient,
    });
  });
});
