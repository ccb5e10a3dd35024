/**
 * The float per chain and token (issue 40) through GET /api/v1/admin/payouts/float, against the
 * TRON devnet and an Anvil devnet (Arbitrum) over HTTP: one entry per enabled chain and token with
 * exact figures; TRON's balance is the solidified one the sender judges by (a top-up in a block not
 * yet solidified is not in it); a payout in flight lowers `available` on each chain; the float the
 * panel calls short is the one the sender makes wait; a stopped node gives its entries an error and
 * the reply stays 200.
 */
import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { TronWeb } from "tronweb";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { creditMerchant } from "../../src/ledger/post-ledger.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { buildApp } from "../../src/http/app.js";
import { decidePayout } from "../../src/payouts/decide-payout.js";
import { runEvmPayouts } from "../../src/payouts/evm-send.js";
import { runDuePayouts } from "../../src/payouts/send-payouts.js";
import { adminCookie } from "../helpers/admin.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";

const arbitrum = evmDevnetForFile();
const evmHot = new Wallet("0x" + randomBytes(32).toString("hex"));
let t: ChainTest;
let app: FastifyInstance;
let cookie: string;
let apiKey: string;
let tronHot: { privateKey: string; address: string };

beforeAll(async () => {
  const account = await TronWeb.createAccount();
  tronHot = { privateKey: account.privateKey, address: account.address.base58 as string };
  t = await startChainTest({
    env: {
      HOT_WALLET_PRIVATE_KEY: tronHot.privateKey,
      COLD_WALLET_ADDRESS: (await TronWeb.createAccount()).address.base58 as string,
      SWEEP_ENABLED: "false",
      CHAINS: "tron,arbitrum",
      ...evmChainEnv("arbitrum", arbitrum()),
      EVM_HOT_WALLET_PRIVATE_KEY: evmHot.privateKey,
      EVM_COLD_WALLET_ADDRESS: Wallet.createRandom().address,
    },
  });
  // TRON: 100 USDT solidified, then 30 more in a block that is not solidified yet.
  await t.devnetPost("/devnet/fund", { address: tronHot.address, trx: "1000", usdt: "100", solidify: true });
  await t.devnetPost("/devnet/fund", { address: tronHot.address, usdt: "30" });
  // Arbitrum: 25.5 USDT and gas; no USDC.
  await arbitrum().rpc("anvil_setBalance", [evmHot.address, "0x" + (10n ** 18n).toString(16)]);
  await sendToken(arbitrum(), arbitrum().usdtContract, evmHot.address, 25_500_000n);
  await arbitrum().mine();
  app = await buildApp(t.ctx);
  await app.ready();
  cookie = await adminCookie(app);
  const created = await createMerchant(t.ctx, { name: "Float Shop", webhookSecret: "whsec-float-test" });
  apiKey = created.apiKey;
  await creditMerchant(t.ctx.db, {
    merchantId: created.merchant.id,
    currency: "USDT",
    amount: 1_000_000_000n,
    kind: "payment_received",
    refType: "test",
    refId: "seed",
  });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await t?.close();
});

interface Entry {
  chain: string;
  currency: string;
  address: string | null;
  balance: string | null;
  in_flight: { count: number; amount: string };
  available: string | null;
  approved: { count: number; amount: string };
  shortfall: string;
  is_low: boolean;
  waiting_for_float: number;
  error: string | null;
}

async function readFloat(): Promise<{
  body: Record<string, unknown>;
  entry: (chain: string, c: string) => Entry;
}> {
  const res = await app.inject({ method: "GET", url: "/api/v1/admin/payouts/float", headers: { cookie } });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as Record<string, unknown> & { floats: Entry[] };
  return {
    body,
    entry: (chain, currency) => {
      const found = body.floats.find((f) => f.chain === chain && f.currency === currency);
      if (!found) throw new Error(`no float entry for ${chain} ${currency}: ${JSON.stringify(body.floats)}`);
      return found;
    },
  };
}

async function approvedPayout(chain: string, amount: string, address: string): Promise<string> {
  const res = await app.inject({
    method: "POST",
    url: "/api/v1/payouts",
    headers: { "x-api-key": apiKey },
    payload: {
      external_id: `po-${randomBytes(6).toString("hex")}`,
      amount,
      address,
      chain,
      currency: "USDT",
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().id as string;
  await decidePayout(t.ctx, {
    id,
    decision: "approve",
    actor: { kind: "operator", id: "op-2", label: "second operator" },
  });
  return id;
}

describe("the float per chain and token", () => {
  it("has one entry per enabled chain and token with exact figures; TRON's is the solidified balance", async () => {
    const { body, entry } = await readFloat();
    expect((body.floats as Entry[]).map((f) => `${f.chain}:${f.currency}`)).toEqual([
      "tron:USDT",
      "arbitrum:USDT",
      "arbitrum:USDC",
    ]);
    // The 30 USDT in the unsolidified block are not in the balance the sender judges by.
    expect(entry("tron", "USDT")).toMatchObject({
      address: tronHot.address,
      balance: "100.000000",
      in_flight: { count: 0, amount: "0.000000" },
      available: "100.000000",
      is_low: false,
      error: null,
    });
    expect(body).toMatchObject({
      usdt_balance: "100.000000",
      trx_balance: "1000.000000",
      balance_error: null,
    });
    expect(entry("arbitrum", "USDT")).toMatchObject({
      address: evmHot.address,
      balance: "25.500000",
      available: "25.500000",
      in_flight: { count: 0, amount: "0.000000" },
      is_low: false,
      error: null,
    });
    expect(entry("arbitrum", "USDC")).toMatchObject({
      balance: "0.000000",
      available: "0.000000",
      is_low: false,
    });
  });

  it("lowers `available` by a payout in flight, and calls short what the sender makes wait", async () => {
    await approvedPayout("tron", "40", (await TronWeb.createAccount()).address.base58 as string);
    expect((await runDuePayouts(t.ctx, { owner: "float-test" })).claimed).toBe(1);
    await approvedPayout("arbitrum", "10", Wallet.createRandom().address);
    expect((await runEvmPayouts(t.ctx, "arbitrum", { owner: "float-test" })).submitted).toBe(1);

    let { entry } = await readFloat();
    expect(entry("tron", "USDT")).toMatchObject({
      balance: "100.000000",
      in_flight: { count: 1, amount: "40.000000" },
      available: "60.000000",
      is_low: false,
    });
    expect(entry("arbitrum", "USDT")).toMatchObject({
      balance: "25.500000",
      in_flight: { count: 1, amount: "10.000000" },
      available: "15.500000",
      approved: { count: 0, amount: "0.000000" },
      shortfall: "0.000000",
      is_low: false,
    });

    // 20 more approved on Arbitrum: 4.5 short of the 15.5 available, and the sender agrees.
    await approvedPayout("arbitrum", "20", Wallet.createRandom().address);
    ({ entry } = await readFloat());
    expect(entry("arbitrum", "USDT")).toMatchObject({
      approved: { count: 1, amount: "20.000000" },
      shortfall: "4.500000",
      is_low: true,
    });
    t.clock.advance(61_000);
    expect((await runEvmPayouts(t.ctx, "arbitrum", { owner: "float-test" })).waitingForFloat).toBe(1);
    ({ entry } = await readFloat());
    expect(entry("arbitrum", "USDT")).toMatchObject({ waiting_for_float: 1, is_low: true });
    // TRON's float is not Arbitrum's.
    expect(entry("tron", "USDT")).toMatchObject({
      waiting_for_float: 0,
      is_low: false,
      shortfall: "0.000000",
    });
  });

  it("gives a stopped node's entries an error and still answers 200", async () => {
    const node = t.devnet.listeners[0];
    if (!node) throw new Error("the devnet has no listener");
    await node.stop();
    try {
      const { body, entry } = await readFloat();
      expect(entry("tron", "USDT")).toMatchObject({
        balance: null,
        available: null,
        // Without the node, what is in flight is the payouts being sent.
        in_flight: { count: 1, amount: "40.000000" },
        error: "TRON node did not answer",
      });
      expect(body).toMatchObject({ usdt_balance: null, balance_error: "TRON node did not answer" });
      expect(entry("arbitrum", "USDT")).toMatchObject({ balance: "25.500000", error: null });
    } finally {
      await node.start();
    }

    await arbitrum().close();
    const { body, entry } = await readFloat();
    for (const currency of ["USDT", "USDC"])
      expect(entry("arbitrum", currency)).toMatchObject({
        balance: null,
        available: null,
        error: "Arbitrum One node did not answer",
      });
    expect(entry("arbitrum", "USDT")).toMatchObject({ in_flight: { count: 1, amount: "10.000000" } });
    expect(entry("tron", "USDT")).toMatchObject({ balance: "100.000000", error: null });
    expect(JSON.stringify(body)).not.toContain(arbitrum().rpcUrl);
  });
});
