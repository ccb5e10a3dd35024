/**
 * The wallet page per chain (issue 39 part 8, issue 40): GET /admin/wallet shows each enabled EVM
 * chain's hot wallet (native and token balances) and cold wallet (token balances), read through the
 * chain boundary from Anvil over JSON-RPC and kept in the process state for 10 s; a chain whose node
 * does not answer (bsc here, at a closed port) shows that, and the reply is still 200. The address
 * pools are per chain family (tron, evm) in the stats, the wallet reply, the gauges and the pool_low
 * alert. PostgreSQL when TEST_DATABASE_URL is set, else PGlite.
 */
import { computeAddress } from "ethers";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { createScanner } from "../../src/chain/scanner.js";
import { queryRows } from "../../src/db/query-rows.js";
import { refreshMetricsSnapshot } from "../../src/metrics/refresh-metrics-snapshot.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { FAST_RETRY } from "../chain/helpers.js";

const HOT_KEY = "2a".repeat(32);
const HOT = computeAddress("0x" + HOT_KEY).toLowerCase();
const COLD = "0x" + "c0".repeat(20);
const eth = evmDevnetForFile({ chainId: 31337 });
let t: TestApp;
let cookie: string;

const wallet = async () => {
  const reply = await t.app.inject({ method: "GET", url: "/api/v1/admin/wallet", headers: { cookie } });
  expect(reply.statusCode, reply.body).toBe(200);
  return reply.json();
};

beforeAll(async () => {
  t = await createTestApp({
    env: {
      CHAINS: "tron,ethereum,bsc",
      POOL_MIN_FREE: "3",
      ALERT_POOL_MIN_FREE: "2",
      EVM_HOT_WALLET_PRIVATE_KEY: HOT_KEY,
      EVM_COLD_WALLET_ADDRESS: COLD,
      ...evmChainEnv("ethereum", eth()),
      BSC_NETWORK: "mainnet",
      BSC_RPC_URL: "http://127.0.0.1:1",
    },
  });
  cookie = await adminCookie(t.app);
  // 1.5 ETH and 25 USDT to the hot wallet, 7.25 USDC to the cold one.
  await eth().rpc("eth_sendTransaction", [
    { from: eth().faucetAddress, to: HOT, value: "0x14d1120d7b160000" },
  ]);
  await sendToken(eth(), eth().usdtContract, HOT, 25_000_000n);
  await sendToken(eth(), eth().usdcContract, COLD, 7_250_000n);
  await eth().mine(1);
  // The chain reads its tokens' decimals on its first scan (an api process: on the first checkout).
  const ethereum = t.ctx.chains.get("ethereum");
  await createScanner(t.ctx, { chain: ethereum!, retry: FAST_RETRY, maxIdleMs: 50 }).sync();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe("GET /api/v1/admin/wallet on EVM chains", () => {
  it("shows each EVM chain's hot and cold wallet balances, and a chain whose node fails as such", async () => {
    const body = await wallet();
    expect(body.evm_wallets).toEqual([
      {
        chain: "ethereum",
        native_symbol: "ETH",
        hot_wallet: {
          address: HOT,
          native_balance: "1.500000000000000000",
          tokens: [
            { currency: "USDT", balance: "25.000000" },
            { currency: "USDC", balance: "0.000000" },
          ],
        },
        cold_wallet: {
          address: COLD,
          tokens: [
            { currency: "USDT", balance: "0.000000" },
            { currency: "USDC", balance: "7.250000" },
          ],
        },
        read_at: t.clock.now().toISOString(),
      },
      {
        chain: "bsc",
        native_symbol: "BNB",
        hot_wallet: { address: HOT, native_balance: null, tokens: expect.any(Array) },
        cold_wallet: { address: COLD, tokens: expect.any(Array) },
        read_at: null,
        balance_error: "BNB Smart Chain node did not answer",
      },
    ]);
    expect(body.evm_wallets[1].hot_wallet.tokens.every((b: { balance: unknown }) => b.balance === null)).toBe(
      true,
    );
    // No key in the reply.
    expect(JSON.stringify(body)).not.toContain(HOT_KEY);
  });

  it("keeps a chain's reading in the process for 10 s, then reads the node again", async () => {
    const before = (await wallet()).evm_wallets[0];
    await sendToken(eth(), eth().usdtContract, HOT, 5_000_000n);
    await eth().mine(1);
    t.clock.advance(5_000);
    expect((await wallet()).evm_wallets[0]).toEqual(before);
    t.clock.advance(5_001);
    const after = (await wallet()).evm_wallets[0];
    expect(after.hot_wallet.tokens[0]).toEqual({ currency: "USDT", balance: "30.000000" });
    expect(after.read_at).toBe(t.clock.now().toISOString());
  });
});

describe("address pools per chain family", () => {
  it("counts each family's pool in the stats, the wallet reply, the gauges and the pool_low alert", async () => {
    // Both pools empty: one pool_low per family.
    const first = await evaluateAlerts(t.ctx, { headFreshMs: 0 });
    expect(first.fired.filter((a) => a === "pool_low")).toHaveLength(2);
    const firingKeys = async () =>
      (
        await queryRows<{ key: string }>(
          t.ctx.db,
          sql`SELECT key FROM alerts WHERE alert = 'pool_low' AND state = 'firing' ORDER BY key`,
        )
      ).map((r) => r.key);
    expect(await firingKeys()).toEqual(["pool_low:evm", "pool_low:tron"]);

    await fillAddressPool(t.ctx, { family: "evm" });
    const stats = (
      await t.app.inject({ method: "GET", url: "/api/v1/admin/stats", headers: { cookie } })
    ).json();
    expect(stats.address_pools).toEqual([
      { family: "tron", total: 0, free: 0, allocated: 0 },
      { family: "evm", total: 3, free: 3, allocated: 0 },
    ]);
    expect(stats.address_pool).toEqual({ total: 3, free: 3, allocated: 0 });
    // No deposits yet: their amounts add no currency, whatever the enabled chains take.
    expect(stats.deposits).toMatchObject({ currencies: [], by_chain_currency: [] });
    expect((await wallet()).address_pools).toEqual(stats.address_pools);

    // Only the EVM pool's alert clears (3 free, the alert is below 2); TRON's pool is still empty.
    const second = await evaluateAlerts(t.ctx, { headFreshMs: 0 });
    expect(second.resolved).toEqual(["pool_low"]);
    expect(await firingKeys()).toEqual(["pool_low:tron"]);

    t.clock.advance(60_000);
    await refreshMetricsSnapshot(t.ctx);
    const metrics = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
    expect(metrics).toContain('stablegate_address_pool_family_free_addresses{family="evm"} 3');
    expect(metrics).toContain('stablegate_address_pool_family_free_addresses{family="tron"} 0');
    expect(metrics).toContain("stablegate_address_pool_free_addresses 3");
  });
});
