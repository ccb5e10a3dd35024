/**
 * A top-up sweep that the base fee outran (docs/evm-sweeps.md "A sweep the fees outran"), on Anvil
 * over HTTP. Once the deposit address's sweep is in the node's pool, every block is mined with a
 * base fee far above the caps the first top-up paid for (`anvil_setNextBlockBaseFeePerGas`): Anvil
 * drops the sweep from its pool and refuses its bytes again, so it can never be included. The
 * sweeper must top the address up by the difference and have the deposit key sign the same nonce at
 * higher caps; the chain then shows one Transfer to the cold wallet, the deposit address's nonce is
 * 1, and the costs recorded are the landed receipts'.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { JsonRpcProvider, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { queryRows } from "../../src/db/query-rows.js";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { runDueEvmSweeps } from "../../src/sweeps/evm-sweeps.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import {
  addressTopic,
  evmChainEnv,
  evmDevnetForFile,
  sendToken,
  TRANSFER_TOPIC,
  type EvmLog,
} from "../helpers/evm-devnet.js";
import { tokenBalance } from "../helpers/evm-sweeps.js";
import { poll } from "../helpers/poll.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

const eth = evmDevnetForFile({ chainId: 31337 });
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
const cold = Wallet.createRandom().address.toLowerCase();
/** The base fee once the sweep is out: about twenty times what its caps cover. */
const HIGH_BASE_FEE = 50_000_000_000n;
let t: TestApp;
let shop: TestMerchant;
let scanner: Scanner;

beforeAll(async () => {
  t = await createTestApp({
    env: {
      CHAINS: "ethereum",
      CONFIRMATIONS: "1",
      POOL_MIN_FREE: "5",
      SWEEP_ENABLED: "true",
      SWEEP_MIN_USDT: "1",
      ...evmChainEnv("ethereum", eth()),
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: cold,
    },
  });
  await eth().rpc("anvil_setBalance", [hot.address, "0x" + (10n ** 18n).toString(16)]);
  shop = await addMerchant(t.ctx, "Fee Rise Shop");
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

async function paidOrder(units: bigint) {
  const res = await postOrder(
    t,
    shop.apiKey,
    orderBody({ chain: "ethereum", currency: "USDC", amount: "7" }),
  );
  expect(res.statusCode, res.body).toBe(201);
  const order = res.json() as { id: string; address: string };
  await sendToken(eth(), eth().usdcContract, order.address, units);
  await eth().mine(1);
  await scanner.sync();
  await eth().mine(eth().finalityDepth + 1);
  await scanner.sync();
  return { id: order.id, address: order.address.toLowerCase() };
}

type OutboxView = {
  purpose: string;
  ref: string;
  sender: string;
  generation: number;
  state: string;
  tx_hash: string;
  max_fee: string;
};

async function outboxOf(address: string) {
  return queryRows<OutboxView>(
    t.ctx.db,
    sql`SELECT purpose, ref, sender, generation, state, tx_hash, max_fee_per_gas::text AS max_fee
        FROM evm_transactions WHERE chain = 'ethereum' AND (to_address = ${address} OR sender = ${address})
        ORDER BY id`,
  );
}

async function settlementStatus(orderId: string) {
  const [row] = await queryRows<{ status: string }>(
    t.ctx.db,
    sql`SELECT status FROM settlements WHERE order_id = ${orderId}::uuid`,
  );
  return row?.status;
}

/** A block; once the address's first sweep is stored, at a base fee its caps cannot pay. */
async function mine(address: string) {
  const sweeps = (await outboxOf(address)).filter((x) => x.purpose === "sweep");
  if (sweeps.length > 0)
    await eth().rpc("anvil_setNextBlockBaseFeePerGas", ["0x" + HIGH_BASE_FEE.toString(16)]);
  await eth().mine(1);
}

/** One turn of the worker's sweeper and outbox loops, then a block. */
async function turn(address: string) {
  t.clock.advance(10_000);
  await runDueEvmSweeps(t.ctx, "ethereum", { owner: "test-sweeper" });
  await runOutbox(t.ctx, "ethereum", { signers: signerLookup(t.ctx, "ethereum") });
  await mine(address);
}

async function paid(hash: string): Promise<bigint> {
  const receipt = await provider().getTransactionReceipt(hash);
  if (!receipt) throw new Error(`no receipt for ${hash}`);
  return receipt.gasUsed * receipt.gasPrice;
}

describe("a top-up sweep the base fee outran", () => {
  it("tops the address up by the difference and replaces the sweep at the same nonce: one Transfer lands", async () => {
    const p = provider();
    const units = 7_000_001n;
    const order = await paidOrder(units);

    await poll("the sweep to complete", () => settlementStatus(order.id), {
      until: (s) => s === "completed",
      intervalMs: 0,
      between: () => turn(order.address),
      describe: async () => ({
        txs: await outboxOf(order.address),
        bumps: await queryRows(t.ctx.db, sql`SELECT * FROM evm_sweep_bumps`),
      }),
    });

    // The cold wallet grew by exactly the payment, in one Transfer from the address.
    expect(await tokenBalance(p, eth().usdcContract, cold)).toBe(units);
    expect(await tokenBalance(p, eth().usdcContract, order.address)).toBe(0n);
    const transfers = await eth().rpc<EvmLog[]>("eth_getLogs", [
      {
        fromBlock: "0x0",
        toBlock: "latest",
        address: eth().usdcContract,
        topics: [TRANSFER_TOPIC, addressTopic(order.address)],
      },
    ]);
    expect(transfers.map((l) => [l.topics[2], BigInt(l.data)])).toEqual([[addressTopic(cold), units]]);
    expect(await p.getTransactionCount(order.address, "latest")).toBe(1);

    // Two top-ups from the hot wallet; two generations of one sweep, the second landed.
    const txs = await outboxOf(order.address);
    const hotAddress = hot.address.toLowerCase();
    expect(txs.map((x) => [x.purpose, x.sender, x.generation, x.state])).toEqual([
      ["sweep_gas", hotAddress, 0, "final"],
      ["sweep", order.address, 0, "replaced"],
      ["sweep_gas", hotAddress, 0, "final"],
      ["sweep", order.address, 1, "final"],
    ]);
    const [firstGas, stuck, extraGas, landed] = txs as [OutboxView, OutboxView, OutboxView, OutboxView];
    expect(extraGas.ref).toBe(`${firstGas.ref}:1`);
    expect(stuck.ref).toBe(landed.ref);
    expect(await p.getTransactionReceipt(stuck.tx_hash)).toBeNull();
    expect(transfers[0]?.transactionHash).toBe(landed.tx_hash);
    // The replacement's caps are above the base fee that priced the first out, and >= +12.5 %.
    expect(BigInt(landed.max_fee)).toBeGreaterThan(HIGH_BASE_FEE);
    expect(BigInt(landed.max_fee) * 1000n).toBeGreaterThanOrEqual(BigInt(stuck.max_fee) * 1125n);

    // The extra top-up was exactly what the new caps need less what the address held.
    const [bump] = await queryRows<{
      state: string;
      held: string;
      topup: string;
      max_fee: string;
      hash: string;
    }>(
      t.ctx.db,
      sql`SELECT state, held_wei::text AS held, topup_wei::text AS topup, max_fee_per_gas::text AS max_fee,
            sweep_tx_hash AS hash FROM evm_sweep_bumps`,
    );
    const [leg] = await queryRows<{
      gas_limit: string;
      topup: string;
      gas: string;
      sweep_gas: string;
      dust: string;
      hash: string;
    }>(
      t.ctx.db,
      sql`SELECT gas_limit::text AS gas_limit, topup_wei::text AS topup, gas_cost_wei::text AS gas,
            sweep_gas_cost_wei::text AS sweep_gas, dust_wei::text AS dust, sweep_tx_hash AS hash
          FROM evm_sweep_legs`,
    );
    if (!bump || !leg) throw new Error("no bump or leg recorded");
    expect(bump.state).toBe("replaced");
    expect(bump.hash).toBe(landed.tx_hash);
    expect(bump.max_fee).toBe(landed.max_fee);
    expect(BigInt(bump.held)).toBe(BigInt(leg.topup));
    expect(BigInt(bump.topup)).toBe(BigInt(leg.gas_limit) * BigInt(bump.max_fee) - BigInt(bump.held));
    const extraReceipt = await p.getTransaction(extraGas.tx_hash);
    expect(extraReceipt?.value).toBe(BigInt(bump.topup));

    // The costs are the landed receipts': both top-ups, and the generation that landed.
    expect(BigInt(leg.gas)).toBe((await paid(firstGas.tx_hash)) + (await paid(extraGas.tx_hash)));
    expect(BigInt(leg.sweep_gas)).toBe(await paid(landed.tx_hash));
    expect(leg.hash).toBe(landed.tx_hash);
    const dust = await p.getBalance(order.address);
    expect(BigInt(leg.dust)).toBe(dust);
    expect(dust).toBe(BigInt(leg.topup) + BigInt(bump.topup) - BigInt(leg.sweep_gas));

    // Further turns send nothing more.
    await turn(order.address);
    await turn(order.address);
    expect((await outboxOf(order.address)).length).toBe(4);
  }, 90_000);
});
