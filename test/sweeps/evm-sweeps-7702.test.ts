/**
 * EVM sweeps with EVM_SWEEP_MODE=7702 (docs/evm-sweeps.md) on Anvil over HTTP: the hot wallet sends
 * one type-4 transaction carrying the deposit key's authorization to the sweeper contract (deployed
 * here for the cold wallet and named by EVM_SWEEPER_CONTRACT), which moves the whole balance to the
 * cold wallet. No gas is ever sent to the address and none is left there; a second payment to the
 * same address is swept by a plain call, the delegation still in place. A hot wallet that cannot pay
 * the sweep's gas holds the sweep back and raises `hot_wallet_low:ethereum` until it is funded.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { JsonRpcProvider, Transaction, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { delegationCode } from "@stablegate/devnet";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { queryRows } from "../../src/db/query-rows.js";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { runDueEvmSweeps } from "../../src/sweeps/evm-sweeps.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { automineProvider, deploySweeper, tokenBalance } from "../helpers/evm-sweeps.js";
import { poll } from "../helpers/poll.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

const eth = evmDevnetForFile({ chainId: 31337 });
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
const cold = Wallet.createRandom().address.toLowerCase();
let sweeper: string;
let t: TestApp;
let shop: TestMerchant;
let scanner: Scanner;

beforeAll(async () => {
  const d = eth();
  const deployer = new Wallet(d.faucetPrivateKey, await automineProvider(d));
  sweeper = (await deploySweeper(deployer, cold)).toLowerCase();
  await d.rpc("evm_setAutomine", [false]);
  await d.rpc("anvil_setBalance", [hot.address, "0x" + (10n ** 18n).toString(16)]);
  t = await createTestApp({
    env: {
      CHAINS: "ethereum",
      CONFIRMATIONS: "1",
      POOL_MIN_FREE: "5",
      SWEEP_ENABLED: "true",
      SWEEP_MIN_USDT: "1",
      ...evmChainEnv("ethereum", d),
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: cold,
      EVM_SWEEP_MODE: "7702",
      EVM_SWEEPER_CONTRACT: sweeper,
    },
  });
  shop = await addMerchant(t.ctx, "Delegating Shop");
  await fillAddressPools(t.ctx);
  const chain = t.ctx.chains.get("ethereum");
  if (!chain) throw new Error("ethereum is not enabled");
  scanner = createScanner(t.ctx, { chain, retry: FAST_RETRY, maxIdleMs: 50 });
  await scanner.sync();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const provider = () => new JsonRpcProvider(eth().rpcUrl, eth().chainId, { staticNetwork: true });

async function pay(address: string, units: bigint) {
  await sendToken(eth(), eth().usdcContract, address, units);
  await eth().mine(1);
  await scanner.sync();
  await eth().mine(eth().finalityDepth + 1);
  await scanner.sync();
}

async function settlement(orderId: string) {
  const [row] = await queryRows<{ status: string; step: string | null; round: number; mode: string }>(
    t.ctx.db,
    sql`SELECT status, step, round, mode FROM settlements WHERE order_id = ${orderId}::uuid`,
  );
  return row;
}

async function sweptRounds(orderId: string, round: number) {
  await poll(`round ${round} swept`, () => settlement(orderId), {
    until: (s) => s?.status === "completed" && s.round === round,
    intervalMs: 0,
    between: async () => {
      t.clock.advance(60_000);
      await runDueEvmSweeps(t.ctx, "ethereum", { owner: "test-sweeper" });
      await runOutbox(t.ctx, "ethereum", { signers: signerLookup(t.ctx, "ethereum") });
      await eth().mine(1);
    },
  });
}

describe("EVM sweeps, 7702 mode", () => {
  it("sweeps with one type-4 transaction from the hot wallet: no gas sent to the address, no dust", async () => {
    const p = provider();
    const res = await postOrder(
      t,
      shop.apiKey,
      orderBody({ chain: "ethereum", currency: "USDC", amount: "4" }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json() as { id: string; address: string };
    const address = order.address.toLowerCase();
    await pay(address, 4_000_000n);
    await sweptRounds(order.id, 1);

    expect(await tokenBalance(p, eth().usdcContract, cold)).toBe(4_000_000n);
    expect(await tokenBalance(p, eth().usdcContract, address)).toBe(0n);
    expect(await p.getBalance(address)).toBe(0n);
    expect(await p.getCode(address)).toBe(delegationCode(sweeper));
    expect(await settlement(order.id)).toMatchObject({ status: "completed", step: "swept", mode: "7702" });

    const txs = await queryRows<{ purpose: string; sender: string; raw: string; tx_hash: string }>(
      t.ctx.db,
      sql`SELECT purpose, sender, raw, tx_hash FROM evm_transactions WHERE to_address = ${address} ORDER BY id`,
    );
    expect(txs.map((x) => [x.purpose, x.sender])).toEqual([["sweep", hot.address.toLowerCase()]]);
    const first = Transaction.from(txs[0]?.raw ?? "");
    expect(first.type).toBe(4);
    expect(first.authorizationList?.map((a) => [a.address.toLowerCase(), a.chainId])).toEqual([
      [sweeper, BigInt(eth().chainId)],
    ]);
    const receipt = await p.getTransactionReceipt(txs[0]?.tx_hash ?? "");
    const [leg] = await queryRows<{ topup: string; gas: string; sweep_gas: string; dust: string }>(
      t.ctx.db,
      sql`SELECT topup_wei::text AS topup, gas_cost_wei::text AS gas, sweep_gas_cost_wei::text AS sweep_gas,
            dust_wei::text AS dust
          FROM evm_sweep_legs l JOIN settlements s ON s.id = l.settlement_id WHERE s.order_id = ${order.id}::uuid`,
    );
    expect(leg).toEqual({
      topup: "0",
      gas: "0",
      sweep_gas: ((receipt?.gasUsed ?? 0n) * (receipt?.gasPrice ?? 0n)).toString(),
      dust: "0",
    });

    // Paid again: the delegation stands, so the second sweep is a plain EIP-1559 call.
    await pay(address, 2_500_000n);
    await sweptRounds(order.id, 2);
    expect(await tokenBalance(p, eth().usdcContract, cold)).toBe(6_500_000n);
    expect(await p.getBalance(address)).toBe(0n);
    const again = await queryRows<{ raw: string }>(
      t.ctx.db,
      sql`SELECT raw FROM evm_transactions WHERE to_address = ${address} ORDER BY id`,
    );
    expect(again.map((x) => Transaction.from(x.raw).type)).toEqual([4, 2]);
  }, 90_000);

  it("waits while the hot wallet cannot pay the sweep's gas, alerts, and sweeps once it is funded", async () => {
    const p = provider();
    const d = eth();
    const coldBefore = await tokenBalance(p, d.usdcContract, cold);
    await d.rpc("anvil_setBalance", [hot.address, "0x0"]);
    const res = await postOrder(
      t,
      shop.apiKey,
      orderBody({ chain: "ethereum", currency: "USDC", amount: "7" }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json() as { id: string; address: string };
    const address = order.address.toLowerCase();
    await pay(address, 7_000_001n);
    const hotNonce = await p.getTransactionCount(hot.address, "latest");

    const turn = async () => {
      t.clock.advance(60_000);
      await runDueEvmSweeps(t.ctx, "ethereum", { owner: "test-sweeper" });
      await runOutbox(t.ctx, "ethereum", { signers: signerLookup(t.ctx, "ethereum") });
      await d.mine(1);
    };
    const sweepsOf = () =>
      queryRows<{ state: string }>(
        t.ctx.db,
        sql`SELECT state FROM evm_transactions WHERE to_address = ${address} AND purpose = 'sweep'`,
      );
    const firing = () =>
      queryRows<{ key: string }>(
        t.ctx.db,
        sql`SELECT key FROM alerts WHERE alert = 'hot_wallet_low' AND state = 'firing' ORDER BY key`,
      );
    await turn();
    await turn();
    // Nothing is sent: the leg waits, planned, and the chain's alert fires.
    expect(await settlement(order.id)).toMatchObject({ status: "active", step: "legs", mode: "7702" });
    expect(await sweepsOf()).toEqual([]);
    expect(await p.getTransactionCount(hot.address, "latest")).toBe(hotNonce);
    const fired = await evaluateAlerts(t.ctx, { headFreshMs: 0 });
    expect(fired.fired).toContain("hot_wallet_low");
    expect(await firing()).toEqual([{ key: "hot_wallet_low:ethereum" }]);

    await d.rpc("anvil_setBalance", [hot.address, "0x" + (10n ** 18n).toString(16)]);
    await poll("the funded sweep to complete", () => settlement(order.id), {
      until: (s) => s?.status === "completed",
      intervalMs: 0,
      between: turn,
      describe: sweepsOf,
    });
    expect(await tokenBalance(p, d.usdcContract, cold)).toBe(coldBefore + 7_000_001n);
    expect(await tokenBalance(p, d.usdcContract, address)).toBe(0n);
    expect(await p.getBalance(address)).toBe(0n);
    expect(await sweepsOf()).toEqual([{ state: "final" }]);
    expect(await p.getTransactionCount(hot.address, "latest")).toBe(hotNonce + 1);
    const resolved = await evaluateAlerts(t.ctx, { headFreshMs: 0 });
    expect(resolved.resolved).toContain("hot_wallet_low");
    expect(await firing()).toEqual([]);
  }, 90_000);
});
