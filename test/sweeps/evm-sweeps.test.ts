/**
 * EVM sweeps in top-up mode (docs/evm-sweeps.md) on two Anvil devnets over HTTP: ethereum (its
 * 6-decimal USDC) and bsc (chain id 56, the 18-decimal USDT). Orders are paid, scanned to
 * finality, and the service's own sweeper and outbox pass move each whole token balance to the
 * cold wallet, which is read independently with ethers. The hot wallet starts empty on ethereum:
 * the sweep waits and `hot_wallet_low:ethereum` fires until it is funded. An order's settlement and
 * a stray's on the same address are swept one at a time, the cold wallet growing by their total.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { JsonRpcProvider, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvmDevnet } from "@stablegate/devnet";
import { readAlertConditions } from "../../src/alerts/alert-conditions.js";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import type { ChainId } from "../../src/chains/chain-types.js";
import { queryRows } from "../../src/db/query-rows.js";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { runDueEvmSweeps } from "../../src/sweeps/evm-sweeps.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { tokenBalance } from "../helpers/evm-sweeps.js";
import { poll } from "../helpers/poll.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

const eth = evmDevnetForFile({ chainId: 31337 });
const bsc = evmDevnetForFile({ chainId: 56 });
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
const cold = Wallet.createRandom().address.toLowerCase();
let t: TestApp;
let shop: TestMerchant;
const scanners = new Map<ChainId, Scanner>();
const devnets = (): Record<string, EvmDevnet> => ({ ethereum: eth(), bsc: bsc() });

beforeAll(async () => {
  t = await createTestApp({
    env: {
      CHAINS: "ethereum,bsc",
      CONFIRMATIONS: "1",
      POOL_MIN_FREE: "5",
      SWEEP_ENABLED: "true",
      SWEEP_MIN_USDT: "1",
      ...evmChainEnv("ethereum", eth()),
      ...evmChainEnv("bsc", bsc(), bsc().usdt18Contract),
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: cold,
    },
  });
  shop = await addMerchant(t.ctx, "Sweep Shop");
  await fillAddressPools(t.ctx);
  for (const chain of t.ctx.chains.list) {
    const scanner = createScanner(t.ctx, { chain, retry: FAST_RETRY, maxIdleMs: 50 });
    scanners.set(chain.id, scanner);
    await scanner.sync();
  }
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const provider = (d: EvmDevnet) => new JsonRpcProvider(d.rpcUrl, d.chainId, { staticNetwork: true });

async function fundHot(d: EvmDevnet, wei: bigint) {
  await d.rpc("anvil_setBalance", [hot.address, "0x" + wei.toString(16)]);
}

/** An order paid with `units` of `token` and scanned until its outcome is final. */
async function paidOrder(chain: ChainId, currency: string, amount: string, token: string, units: bigint) {
  const d = devnets()[chain] as EvmDevnet;
  const res = await postOrder(t, shop.apiKey, orderBody({ chain, currency, amount }));
  expect(res.statusCode, res.body).toBe(201);
  const order = res.json() as { id: string; address: string };
  await sendToken(d, token, order.address, units);
  await d.mine(1);
  await scanners.get(chain)?.sync();
  await d.mine(d.finalityDepth + 1);
  await scanners.get(chain)?.sync();
  const [row] = await queryRows<{ status: string }>(
    t.ctx.db,
    sql`SELECT status FROM orders WHERE id = ${order.id}::uuid`,
  );
  expect(row?.status).toBe("confirmed");
  return { ...order, address: order.address.toLowerCase() };
}

/** One turn of the worker's sweeper and outbox loops for `chain`, then a block. */
async function turn(chain: ChainId) {
  t.clock.advance(60_000);
  await runDueEvmSweeps(t.ctx, chain, { owner: "test-sweeper" });
  await runOutbox(t.ctx, chain, { signers: signerLookup(t.ctx, chain) });
  await (devnets()[chain] as EvmDevnet).mine(1);
}

async function settlementOf(orderId: string) {
  const [row] = await queryRows<{
    status: string;
    step: string | null;
    chain: string;
    amount: string | null;
  }>(
    t.ctx.db,
    sql`SELECT status, step, chain, amount::text AS amount FROM settlements WHERE order_id = ${orderId}::uuid`,
  );
  return row;
}

async function legsOf(orderId: string) {
  return queryRows<{
    currency: string;
    units: string;
    state: string;
    topup_wei: string;
    gas_cost_wei: string;
    sweep_gas_cost_wei: string;
    dust_wei: string;
    gas_limit: string;
    max_fee: string;
  }>(
    t.ctx.db,
    sql`SELECT l.currency, l.units::text AS units, l.state, l.topup_wei::text AS topup_wei,
          l.gas_cost_wei::text AS gas_cost_wei, l.sweep_gas_cost_wei::text AS sweep_gas_cost_wei,
          l.dust_wei::text AS dust_wei, l.gas_limit::text AS gas_limit, l.max_fee_per_gas::text AS max_fee
        FROM evm_sweep_legs l JOIN settlements s ON s.id = l.settlement_id WHERE s.order_id = ${orderId}::uuid`,
  );
}

async function outboxRows(address: string, chain: ChainId) {
  return queryRows<{ purpose: string; sender: string; to_address: string; tx_hash: string; state: string }>(
    t.ctx.db,
    sql`SELECT purpose, sender, to_address, tx_hash, state FROM evm_transactions
        WHERE chain = ${chain} AND (to_address = ${address} OR sender = ${address}) ORDER BY id`,
  );
}

/** gasUsed x effectiveGasPrice of a transaction, from the node's receipt. */
async function paid(d: EvmDevnet, hash: string): Promise<bigint> {
  const receipt = await provider(d).getTransactionReceipt(hash);
  if (!receipt) throw new Error(`no receipt for ${hash}`);
  return receipt.gasUsed * receipt.gasPrice;
}

const hotLow = async (chain: ChainId) =>
  (await readAlertConditions(t.ctx, { headFreshMs: 0 })).find((r) => r.key === `hot_wallet_low:${chain}`);

describe("EVM sweeps, top-up mode", () => {
  it("waits and alerts while the hot wallet cannot pay the gas, then sweeps Ethereum USDC to the cold wallet to the last unit", async () => {
    const d = eth();
    await fundHot(d, 0n);
    const order = await paidOrder("ethereum", "USDC", "12.345678", d.usdcContract, 12_345_678n);
    expect((await settlementOf(order.id))?.chain).toBe("ethereum");

    // No ETH on the hot wallet: the leg is planned, nothing is sent, the chain's alert fires.
    await turn("ethereum");
    await turn("ethereum");
    expect((await legsOf(order.id)).map((l) => l.state)).toEqual(["planned"]);
    expect(await outboxRows(order.address, "ethereum")).toEqual([]);
    expect((await hotLow("ethereum"))?.firing).toBe(true);
    expect((await hotLow("bsc"))?.firing).toBe(false);

    await fundHot(d, 10n ** 18n);
    await poll("the ethereum sweep to complete", async () => (await settlementOf(order.id))?.status, {
      until: (s) => s === "completed",
      between: () => turn("ethereum"),
      describe: async () => ({
        legs: await legsOf(order.id),
        txs: await outboxRows(order.address, "ethereum"),
      }),
    });
    expect((await hotLow("ethereum"))?.firing).toBe(false);

    // The cold wallet holds exactly the payment; the deposit address no USDC.
    const p = provider(d);
    expect(await tokenBalance(p, d.usdcContract, cold)).toBe(12_345_678n);
    expect(await tokenBalance(p, d.usdcContract, order.address)).toBe(0n);
    expect(await settlementOf(order.id)).toEqual({
      status: "completed",
      step: "swept",
      chain: "ethereum",
      amount: "12345678",
    });

    // One top-up from the hot wallet, one sweep from the deposit address; both final.
    const txs = await outboxRows(order.address, "ethereum");
    expect(txs.map((x) => [x.purpose, x.sender, x.state])).toEqual([
      ["sweep_gas", hot.address.toLowerCase(), "final"],
      ["sweep", order.address, "final"],
    ]);
    // The top-up was exactly gas limit x max fee (the address held no ETH); the ledger's costs
    // are the receipts' and the dust is what the address holds now.
    const [leg] = await legsOf(order.id);
    expect(leg?.state).toBe("swept");
    expect(BigInt(leg?.topup_wei ?? 0)).toBe(BigInt(leg?.gas_limit ?? 0) * BigInt(leg?.max_fee ?? 0));
    const [gasTx, sweepTx] = txs;
    expect(BigInt(leg?.gas_cost_wei ?? -1)).toBe(await paid(d, gasTx?.tx_hash ?? ""));
    expect(BigInt(leg?.sweep_gas_cost_wei ?? -1)).toBe(await paid(d, sweepTx?.tx_hash ?? ""));
    const dust = await p.getBalance(order.address);
    expect(BigInt(leg?.dust_wei ?? -1)).toBe(dust);
    expect(dust).toBe(BigInt(leg?.topup_wei ?? 0) - BigInt(leg?.sweep_gas_cost_wei ?? 0));

    // Further turns send nothing more.
    await turn("ethereum");
    await turn("ethereum");
    expect((await outboxRows(order.address, "ethereum")).length).toBe(2);
  }, 90_000);

  it("sweeps a BSC-style 18-decimal USDT balance whole, its sub-micro remainder included", async () => {
    const d = bsc();
    await fundHot(d, 10n ** 18n);
    const units = 5n * 10n ** 18n + 123n;
    const order = await paidOrder("bsc", "USDT", "5", d.usdt18Contract, units);
    await poll("the bsc sweep to complete", async () => (await settlementOf(order.id))?.status, {
      until: (s) => s === "completed",
      between: () => turn("bsc"),
      describe: async () => ({ legs: await legsOf(order.id), txs: await outboxRows(order.address, "bsc") }),
    });
    const p = provider(d);
    expect(await tokenBalance(p, d.usdt18Contract, cold)).toBe(units);
    expect(await tokenBalance(p, d.usdt18Contract, order.address)).toBe(0n);
    expect(await settlementOf(order.id)).toMatchObject({ step: "swept", amount: "5000000" });
    expect((await legsOf(order.id)).map((l) => [l.currency, l.units, l.state])).toEqual([
      ["USDT", units.toString(), "swept"],
    ]);
    const events = await queryRows<{ payload: Record<string, unknown> }>(
      t.ctx.db,
      sql`SELECT payload FROM order_events WHERE order_id = ${order.id}::uuid AND event_type = 'sweep_completed'`,
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toMatchObject({ chain: "bsc", amount: "5.000000" });
  }, 90_000);

  it("sweeps an address's order settlement and its stray's one at a time; the cold wallet grows by the total", async () => {
    const d = eth();
    await fundHot(d, 10n ** 18n);
    const p = provider(d);
    const coldBefore = {
      usdc: await tokenBalance(p, d.usdcContract, cold),
      usdt: await tokenBalance(p, d.usdtContract, cold),
    };
    const order = await paidOrder("ethereum", "USDC", "6", d.usdcContract, 6_000_000n);
    // USDT to an address whose order is in USDC: a stray on this chain, its own settlement.
    await sendToken(d, d.usdtContract, order.address, 2_000_003n);
    await d.mine(1);
    await scanners.get("ethereum")?.sync();
    await d.mine(d.finalityDepth + 1);
    await scanners.get("ethereum")?.sync();
    const settlements = () =>
      queryRows<{ id: string; order_id: string | null; status: string; step: string | null; legs: number }>(
        t.ctx.db,
        sql`SELECT s.id::text AS id, s.order_id::text AS order_id, s.status, s.step,
              (SELECT count(*)::int FROM evm_sweep_legs l WHERE l.settlement_id = s.id) AS legs
            FROM settlements s WHERE s.address = ${order.address} AND s.chain = 'ethereum' ORDER BY s.id`,
      );
    const queued = await settlements();
    expect(queued.map((s) => [s.order_id === null ? "stray" : "order", s.status])).toEqual([
      ["order", "waiting"],
      ["stray", "waiting"],
    ]);

    // Every turn: at most one of them has started (legs planned) and is not completed.
    const overlaps: unknown[] = [];
    await poll("both settlements to complete", settlements, {
      until: (rows) => rows.every((r) => r.status === "completed"),
      between: async () => {
        await turn("ethereum");
        const rows = await settlements();
        const running = rows.filter((r) => r.status !== "completed" && (r.legs > 0 || r.status === "active"));
        if (running.length > 1) overlaps.push(rows);
      },
      describe: async () => ({ rows: await settlements(), txs: await outboxRows(order.address, "ethereum") }),
    });
    expect(overlaps).toEqual([]);

    // The order's round moved both balances; the stray's found nothing left.
    expect((await settlements()).map((s) => [s.order_id === null ? "stray" : "order", s.step])).toEqual([
      ["order", "swept"],
      ["stray", "below_minimum"],
    ]);
    expect(await tokenBalance(p, d.usdcContract, cold)).toBe(coldBefore.usdc + 6_000_000n);
    expect(await tokenBalance(p, d.usdtContract, cold)).toBe(coldBefore.usdt + 2_000_003n);
    expect(await tokenBalance(p, d.usdcContract, order.address)).toBe(0n);
    expect(await tokenBalance(p, d.usdtContract, order.address)).toBe(0n);
    // One top-up and one sweep per token, each final; the address sent two transactions.
    const txs = await outboxRows(order.address, "ethereum");
    expect(txs.map((x) => [x.purpose, x.state])).toEqual([
      ["sweep_gas", "final"],
      ["sweep", "final"],
      ["sweep_gas", "final"],
      ["sweep", "final"],
    ]);
    expect(await p.getTransactionCount(order.address, "latest")).toBe(2);
  }, 90_000);
});
