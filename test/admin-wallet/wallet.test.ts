import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type Devnet } from "@stablegate/devnet";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_MNEMONIC, testConfig } from "../helpers/config.js";
import { mnemonicToAccountXpub } from "@stablegate/tron/hd";

const HOT_KEY = "1f".repeat(32);
const COLD = "TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC";

let devnet: Devnet;
beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, solidifyAfter: 1, quiet: true });
  const res = await fetch(`${devnet.url}/devnet/fund`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      address: addressFromPrivateKey(HOT_KEY),
      trx: "250.5",
      usdt: "12.5",
      solidify: true,
    }),
  });
  expect(res.status).toBe(200);
  const cold = await fetch(`${devnet.url}/devnet/fund`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address: COLD, usdt: "1000.000001", solidify: true }),
  });
  expect(cold.status).toBe(200);
});
afterAll(() => devnet.close());

async function walletOf(t: TestApp) {
  const cookie = await adminCookie(t.app);
  const reply = await t.app.inject({ method: "GET", url: "/api/v1/admin/wallet", headers: { cookie } });
  expect(reply.statusCode).toBe(200);
  return { body: reply.json(), raw: reply.body };
}

describe("GET /api/v1/admin/wallet", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        TRON_NODE_URL: devnet.url,
        USDT_CONTRACT: devnet.usdtContract,
        HOT_WALLET_PRIVATE_KEY: HOT_KEY,
        COLD_WALLET_ADDRESS: COLD,
        HOT_WALLET_ALERT_TRX: "100",
      },
    });
  });
  afterAll(() => t.close());

  it("needs the admin cookie", async () => {
    const reply = await t.app.inject({ method: "GET", url: "/api/v1/admin/wallet" });
    expect(reply.statusCode).toBe(401);
    expect(reply.json()).toEqual({ error: expect.any(String), code: "ADMIN_UNAUTHORIZED" });
  });

  it("shows the hot wallet balance read from the node, the cold wallet, pool, queue and system", async () => {
    const { body, raw } = await walletOf(t);
    expect(body.hot_wallet).toEqual({
      address: addressFromPrivateKey(HOT_KEY),
      trx_balance: "250.500000",
      usdt_balance: "12.500000",
      is_low_balance: false,
    });
    expect(body.cold_wallet).toEqual({ address: COLD, usdt_balance: "1000.000001" });
    expect(body.address_pool).toEqual({ total: 0, free: 0, allocated: 0 });
    // TRON only: its one pool, and no EVM wallets.
    expect(body.address_pools).toEqual([{ family: "tron", total: 0, free: 0, allocated: 0 }]);
    expect(body.evm_wallets).toEqual([]);
    expect(body.sweep_queue).toEqual({ waiting: 0, active: 0, failed: 0 });
    // Added fields (delegate mode): burn mode stakes nothing, and no sweep has cost anything yet.
    expect(body.stake).toBeNull();
    const none = { count: 0, total_trx: "0.000000", average_trx: "0.000000" };
    expect(body.sweep_costs).toEqual({
      burn: { week: none, total: none },
      delegate: { week: none, total: none },
      // TRON only: no EVM chain, so no EVM sweep costs.
      evm: [],
    });
    expect(body.system).toEqual({
      chain_network: "devnet",
      usdt_contract: devnet.usdtContract,
      node_api_url: devnet.url,
      chain_explorer_base_url: devnet.url,
      tx_explorer_base_url: `${devnet.url}/wallet/gettransactionbyid?value=`,
      address_explorer_base_url: `${devnet.url}/wallet/getaccount?visible=true&address=`,
      sweep_enabled: true,
      sweep_mode: "burn",
      hot_wallet_alert_trx: 100,
    });
    // The key itself, in any form, never leaves the service.
    expect(raw).not.toContain(HOT_KEY);
  });
});

describe("wallet status edge cases", () => {
  it("flags a balance under the alert threshold as low", async () => {
    const t = await createTestApp({
      env: { TRON_NODE_URL: devnet.url, HOT_WALLET_PRIVATE_KEY: HOT_KEY, HOT_WALLET_ALERT_TRX: "251" },
    });
    try {
      const { body } = await walletOf(t);
      expect(body.hot_wallet).toMatchObject({ trx_balance: "250.500000", is_low_balance: true });
    } finally {
      await t.close();
    }
  });

  it("says the node is unreachable instead of failing, and never shows node credentials", async () => {
    const t = await createTestApp({
      env: {
        TRON_NODE_URL: "http://user:secret-token@127.0.0.1:1/?apikey=k3y",
        USDT_CONTRACT: devnet.usdtContract,
        HOT_WALLET_PRIVATE_KEY: HOT_KEY,
        COLD_WALLET_ADDRESS: COLD,
      },
    });
    try {
      const { body, raw } = await walletOf(t);
      expect(body.hot_wallet).toMatchObject({
        balance_error: "TRON node unreachable",
        usdt_balance: null,
        is_low_balance: true,
      });
      expect(body.cold_wallet).toEqual({
        address: COLD,
        usdt_balance: null,
        balance_error: "TRON node unreachable",
      });
      expect(body.system.node_api_url).toBe("http://127.0.0.1:1");
      expect(raw).not.toContain("secret-token");
      expect(raw).not.toContain("k3y");
    } finally {
      await t.close();
    }
  });

  it("is null for wallets a production deployment did not configure", async () => {
    const t = await createTestApp({
      config: testConfig({
        NODE_ENV: "production",
        TRON_NETWORK: "nile",
        TRON_NODE_URL: "http://127.0.0.1:1",
        WALLET_MNEMONIC: undefined,
        WALLET_XPUB: mnemonicToAccountXpub(TEST_MNEMONIC),
      }),
    });
    try {
      const cookie = await adminCookie(t.app);
      const reply = await t.app.inject({ method: "GET", url: "/api/v1/admin/wallet", headers: { cookie } });
      expect(reply.statusCode).toBe(200);
      expect(reply.json()).toMatchObject({
        hot_wallet: null,
        cold_wallet: null,
        system: {
          chain_network: "nile",
          sweep_enabled: false,
          usdt_contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
        },
      });
    } finally {
      await t.close();
    }
  });
});
