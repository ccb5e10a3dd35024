/**
 * EVM payouts and refunds go out (issue 40): a payout on Arbitrum and a refund on Polygon (each
 * chain its own Anvil devnet over HTTP; Polygon's USDT is the 18-decimal token), approved by a
 * second operator, are sent by the EVM sender through the outbox and land exactly once: the
 * recipient's balance read with ethers, one nonce of the hot wallet, the webhooks received by a real
 * HTTP receiver. A stuck payout replaced at a higher fee lands once; a reorganisation that drops an
 * included payout re-sends the same bytes and nothing completes before finality; a short float waits
 * and alerts per chain, then sends after a top-up. A payout whose transaction the outbox declares
 * `dropped` (its nonce used by another transaction, or filled after the node refused its bytes) is
 * submitted again under the next ref and paid once. What each payout's gas cost is recorded from
 * the landed transaction's receipt (read here with ethers) and shown in the admin payout detail; a
 * replaced version that never landed costs nothing.
 */
import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { Contract, JsonRpcProvider, Wallet, formatEther } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAlertConditions } from "../../src/alerts/alert-conditions.js";
import type { ChainId } from "../../src/chains/chain-types.js";
import { queryRows } from "../../src/db/query-rows.js";
import { payouts } from "../../src/db/schema.js";
import { creditMerchant } from "../../src/ledger/post-ledger.js";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { decidePayout } from "../../src/payouts/decide-payout.js";
import { evmPayoutRef } from "../../src/payouts/evm-payout-gas.js";
import { formatAmount } from "../../src/money.js";
import { runEvmPayouts } from "../../src/payouts/evm-send.js";
import { readPayoutFloat } from "../../src/payouts/read-float.js";
import { createWebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import type { EvmDevnet } from "@stablegate/devnet";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";
import { startReceiver, type Receiver } from "../webhooks/fixtures.js";

const arbitrumNet = evmDevnetForFile();
const polygonNet = evmDevnetForFile();
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
const cold = Wallet.createRandom().address;
const ETH = 10n ** 18n;
const E12 = 10n ** 12n;

let t: TestApp;
let shop: TestMerchant;
let receiver: Receiver;
const net = (chain: ChainId): EvmDevnet => (chain === "arbitrum" ? arbitrumNet() : polygonNet());
const usdtOf = (chain: ChainId) =>
  chain === "arbitrum" ? arbitrumNet().usdtContract : polygonNet().usdt18Contract;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestApp({
    env: {
      CHAINS: "tron,arbitrum,polygon",
      ...evmChainEnv("arbitrum", arbitrumNet()),
      ...evmChainEnv("polygon", polygonNet(), polygonNet().usdt18Contract),
      ARBITRUM_FINALITY: "finalized",
      POLYGON_FINALITY: "finalized",
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: cold,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    },
  });
  shop = await addMerchant(t.ctx, "EVM Payouts Shop");
  await creditMerchant(t.ctx.db, {
    merchantId: shop.id,
    currency: "USDT",
    amount: 1_000_000_000n,
    kind: "payment_received",
    refType: "test",
    refId: "seed",
  });
  for (const chain of ["arbitrum", "polygon"] as const) {
    await net(chain).rpc("anvil_setBalance", [hot.address, "0x" + (100n * ETH).toString(16)]);
  }
}, 60_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

async function fund(chain: ChainId, units: bigint) {
  await sendToken(net(chain), usdtOf(chain), hot.address, units);
  await net(chain).mine();
}

function tokenBalance(chain: ChainId, holder: string): Promise<bigint> {
  const provider = new JsonRpcProvider(net(chain).rpcUrl, undefined, { staticNetwork: true });
  const token = new Contract(usdtOf(chain), ["function balanceOf(address) view returns (uint256)"], provider);
  return (token.getFunction("balanceOf")(holder) as Promise<bigint>).finally(() => provider.destroy());
}

/** What the chain charged for `hash`: its receipt's gas used x effective gas price (null: not landed). */
async function receiptCost(chain: ChainId, hash: string): Promise<bigint | null> {
  const provider = new JsonRpcProvider(net(chain).rpcUrl, undefined, { staticNetwork: true });
  try {
    const receipt = await provider.getTransactionReceipt(hash);
    return receipt === null ? null : receipt.gasUsed * receipt.gasPrice;
  } finally {
    provider.destroy();
  }
}

/** Wei as an exact 18-decimal string, all decimals kept (ethers drops trailing zeros). */
function ether18(wei: bigint): string {
  const [whole, fraction = ""] = formatEther(wei).split(".");
  return `${whole}.${fraction.padEnd(18, "0")}`;
}

interface DetailTx {
  tx_hash: string;
  attempt: number;
  state: string;
  generation: number | null;
  nonce: number | null;
  gas_used: string | null;
  effective_gas_price_wei: string | null;
  gas_cost_wei: string | null;
  gas_cost: string | null;
}

async function adminDetail(id: string) {
  const reply = await t.app.inject({
    method: "GET",
    url: `/api/v1/admin/payouts/${id}`,
    headers: { cookie: await adminCookie(t.app) },
  });
  expect(reply.statusCode, reply.body).toBe(200);
  return reply.json() as {
    payout: { gas_cost_wei: string | null; gas_cost: string | null; native_symbol: string; trx_burnt: null };
    transactions: DetailTx[];
    events: { event_type: string; payload: Record<string, unknown> }[];
  };
}

async function payoutRow(id: string) {
  const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
  if (!row) throw new Error(`payout ${id} not found`);
  return row;
}

async function hotNonce(chain: ChainId): Promise<number> {
  return Number(BigInt(await net(chain).rpc<string>("eth_getTransactionCount", [hot.address, "latest"])));
}

async function approve(id: string) {
  await decidePayout(t.ctx, {
    id,
    decision: "approve",
    actor: { kind: "operator", id: "op-2", label: "second operator" },
  });
}

async function createPayout(chain: ChainId, amount: string, to: string): Promise<string> {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/v1/payouts",
    headers: { "x-api-key": shop.apiKey },
    payload: {
      external_id: `po-${randomBytes(6).toString("hex")}`,
      amount,
      address: to,
      chain,
      currency: "USDT",
      callback_url: `${receiver.url}/hooks`,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json().status).toBe("pending_approval");
  return res.json().id as string;
}

const pass = (chain: ChainId, options: { replaceAfterBlocks?: number; recheckAfterMs?: number } = {}) =>
  runOutbox(t.ctx, chain, { signers: signerLookup(t.ctx, chain), ...options });

/** One sender round, one outbox pass, `mine` blocks, the clock past every wait. */
async function step(chain: ChainId, mine = 1) {
  const sent = await runEvmPayouts(t.ctx, chain, { owner: "test-sender" });
  await pass(chain);
  if (mine > 0) await net(chain).mine(mine);
  t.clock.advance(61_000);
  return sent;
}

async function driveUntil(chain: ChainId, id: string, status = "completed", rounds = 20) {
  let row = await payoutRow(id);
  for (let i = 0; i < rounds && row.status !== status; i++) {
    await step(chain);
    row = await payoutRow(id);
  }
  if (row.status !== status)
    throw new Error(
      `payout ${id} is ${row.status} (last_error: ${row.lastError ?? "none"}); waited for ${status}`,
    );
  return row;
}

async function outboxRows(chain: ChainId) {
  return queryRows<{ ref: string; nonce: string; state: string; tx_hash: string; generation: number }>(
    t.ctx.db,
    sql`SELECT ref, nonce::text AS nonce, state, tx_hash, generation FROM evm_transactions
        WHERE chain = ${chain} AND purpose = 'payout' ORDER BY nonce, generation`,
  );
}

describe("EVM payouts and refunds", () => {
  it("pays a payout on Arbitrum and a refund on Polygon (18 decimals) once each, after a second operator's approval", async () => {
    await fund("arbitrum", 50_000_000n);
    await fund("polygon", 50n * ETH);
    const payee = Wallet.createRandom().address;
    const payer = Wallet.createRandom().address;
    const payoutId = await createPayout("arbitrum", "12.345678", payee);

    const order = await postOrder(t, shop.apiKey, orderBody({ chain: "tron", currency: "USDT" }));
    await t.ctx.db.execute(
      sql`UPDATE orders SET amount_received = 10500000, status = 'confirmed' WHERE id = ${order.json().id}::uuid`,
    );
    const refund = await t.app.inject({
      method: "POST",
      url: `/api/v1/payments/${order.json().id}/refunds`,
      headers: { "x-api-key": shop.apiKey },
      payload: {
        amount: "1.000001",
        chain: "polygon",
        address: payer,
        callback_url: `${receiver.url}/hooks`,
      },
    });
    expect(refund.statusCode, refund.body).toBe(201);
    const refundId = refund.json().id as string;

    // Nothing goes out before the second operator approves.
    await step("arbitrum");
    await step("polygon");
    expect((await payoutRow(payoutId)).status).toBe("pending_approval");
    expect(await outboxRows("arbitrum")).toEqual([]);

    const nonces = { arbitrum: await hotNonce("arbitrum"), polygon: await hotNonce("polygon") };
    await approve(payoutId);
    await approve(refundId);
    const paid = await driveUntil("arbitrum", payoutId);
    const refunded = await driveUntil("polygon", refundId);

    expect(await tokenBalance("arbitrum", payee)).toBe(12_345_678n);
    expect(await tokenBalance("polygon", payer)).toBe(1_000_001n * E12);
    expect(await hotNonce("arbitrum")).toBe(nonces.arbitrum + 1);
    expect(await hotNonce("polygon")).toBe(nonces.polygon + 1);
    const arb = await outboxRows("arbitrum");
    expect(arb.map((r) => [r.ref, r.state])).toEqual([[payoutId, "final"]]);
    expect(paid.txHash).toBe(arb[0]?.tx_hash);
    expect(refunded.txHash).toBe((await outboxRows("polygon"))[0]?.tx_hash);

    // What each cost is the chain's own receipt: gas used x effective gas price, to the wei, in
    // the chain's native coin, on the payout, its transaction and its completion event.
    for (const [chain, row, symbol] of [
      ["arbitrum", paid, "ETH"],
      ["polygon", refunded, "POL"],
    ] as const) {
      const cost = await receiptCost(chain, row.txHash ?? "");
      expect(cost).toBeGreaterThan(0n);
      expect(row.gasCostWei).toBe(cost);
      const detail = await adminDetail(row.id);
      expect(detail.payout).toMatchObject({
        gas_cost_wei: String(cost),
        gas_cost: ether18(cost ?? 0n),
        native_symbol: symbol,
        trx_burnt: null,
      });
      expect(detail.transactions).toEqual([
        expect.objectContaining({
          tx_hash: row.txHash,
          attempt: 1,
          state: "final",
          generation: 0,
          gas_cost_wei: String(cost),
          gas_cost: ether18(cost ?? 0n),
        }),
      ]);
      const [tx] = detail.transactions;
      expect(BigInt(tx?.gas_used ?? 0) * BigInt(tx?.effective_gas_price_wei ?? 0)).toBe(cost);
      expect(detail.events.find((e) => e.event_type.endsWith("_completed"))?.payload).toMatchObject({
        gas_cost_wei: String(cost),
      });
    }

    // More rounds change nothing.
    await step("arbitrum");
    await step("polygon");
    expect(await tokenBalance("arbitrum", payee)).toBe(12_345_678n);
    expect(await hotNonce("arbitrum")).toBe(nonces.arbitrum + 1);
    expect((await payoutRow(payoutId)).gasCostWei).toBe(paid.gasCostWei);

    const deliverer = createWebhookDeliverer(t.ctx);
    await deliverer.deliverDue();
    await deliverer.close();
    const events = receiver.requests.map((r) => JSON.parse(r.body.toString()) as Record<string, unknown>);
    expect(events.find((e) => e.payout_id === payoutId)).toMatchObject({
      event: "payout.completed",
      chain: "arbitrum",
      tx_hash: paid.txHash,
    });
    expect(events.find((e) => e.payout_id === refundId)).toMatchObject({
      event: "refund.completed",
      chain: "polygon",
      amount: "1.000001",
    });
  });

  it("replaces a payout stuck at a low fee at a higher one: only one lands", async () => {
    await fund("arbitrum", 10_000_000n);
    const payee = Wallet.createRandom().address;
    const id = await createPayout("arbitrum", "3", payee);
    await approve(id);
    const before = await hotNonce("arbitrum");
    expect((await runEvmPayouts(t.ctx, "arbitrum", { owner: "test-sender" })).submitted).toBe(1);
    // The market rises past the stored transaction's max fee before any block takes it.
    await net("arbitrum").rpc("anvil_setNextBlockBaseFeePerGas", ["0x" + (500n * 10n ** 9n).toString(16)]);
    await net("arbitrum").mine();
    const replaced = await pass("arbitrum", { replaceAfterBlocks: 1 });
    expect(replaced.replaced).toBe(1);
    // Its look is due, but its transaction (the replacement, at the same ref) is on its way: no claim.
    t.clock.advance(61_000);
    expect((await runEvmPayouts(t.ctx, "arbitrum", { owner: "test-sender" })).claimed).toBe(0);
    const row = await driveUntil("arbitrum", id);
    const versions = (await outboxRows("arbitrum")).filter((r) => r.ref === id);
    expect(versions.map((v) => [v.generation, v.state])).toEqual([
      [0, "replaced"],
      [1, "final"],
    ]);
    expect(row.txHash).toBe(versions[1]?.tx_hash);
    expect(await tokenBalance("arbitrum", payee)).toBe(3_000_000n);
    expect(await hotNonce("arbitrum")).toBe(before + 1);

    // Only the version that landed was paid for: the replaced one has no receipt and costs nothing.
    expect(await receiptCost("arbitrum", versions[0]?.tx_hash ?? "")).toBeNull();
    const landed = await receiptCost("arbitrum", versions[1]?.tx_hash ?? "");
    expect(landed).toBeGreaterThan(0n);
    expect(row.gasCostWei).toBe(landed);
    const detail = await adminDetail(id);
    expect(detail.payout.gas_cost_wei).toBe(String(landed));
    expect(detail.transactions.map((x) => [x.tx_hash, x.generation, x.state, x.gas_cost_wei])).toEqual([
      [versions[0]?.tx_hash, 0, "replaced", null],
      [versions[1]?.tx_hash, 1, "final", String(landed)],
    ]);
    expect(new Set(detail.transactions.map((x) => x.nonce)).size).toBe(1);
  });

  it("re-sends the same bytes after a reorganisation drops the included payout; nothing completes before finality", async () => {
    await fund("polygon", 10n * ETH);
    const payee = Wallet.createRandom().address;
    const id = await createPayout("polygon", "0.000001", payee);
    await approve(id);
    const before = await hotNonce("polygon");
    await runEvmPayouts(t.ctx, "polygon", { owner: "test-sender" });
    await net("polygon").mine();
    await pass("polygon");
    const [included] = (await outboxRows("polygon")).filter((r) => r.ref === id);
    expect(included?.state).toBe("included");
    // Included, not final: more sender rounds leave it sending.
    await runEvmPayouts(t.ctx, "polygon", { owner: "test-sender" });
    t.clock.advance(61_000);
    expect((await payoutRow(id)).status).toBe("sending");
    // Its look is due, but its transaction is included and not final: the sender claims nothing.
    expect((await runEvmPayouts(t.ctx, "polygon", { owner: "test-sender" })).claimed).toBe(0);

    await net("polygon").rpc("anvil_reorg", [1, []]);
    expect(await tokenBalance("polygon", payee)).toBe(0n);
    const reorg = await pass("polygon");
    expect(reorg.reorganised).toBe(1);
    expect((await payoutRow(id)).status).toBe("sending");
    await driveUntil("polygon", id);
    const versions = (await outboxRows("polygon")).filter((r) => r.ref === id);
    expect(versions.map((v) => [v.tx_hash, v.state])).toEqual([[included?.tx_hash, "final"]]);
    expect(await tokenBalance("polygon", payee)).toBe(E12);
    expect(await hotNonce("polygon")).toBe(before + 1);
  });

  it("waits and alerts per chain while the float is short, then sends after a top-up", async () => {
    const payee = Wallet.createRandom().address;
    const balance = await tokenBalance("arbitrum", hot.address);
    const id = await createPayout("arbitrum", ((Number(balance) + 5_000_000) / 1e6).toFixed(6), payee);
    await approve(id);
    const round = await runEvmPayouts(t.ctx, "arbitrum", { owner: "test-sender" });
    expect(round.waitingForFloat).toBe(1);
    const row = await payoutRow(id);
    expect([row.status, row.waitReason]).toEqual(["approved", "float_low"]);
    expect(row.lastError).toContain("arbitrum");
    const readings = await readAlertConditions(t.ctx, {});
    const alert = (key: string) => readings.find((r) => r.key === key);
    expect(alert("payout_float_low:arbitrum")?.firing).toBe(true);
    expect(alert("payout_float_low:polygon")?.firing).toBe(false);
    expect(alert("payout_float_low")?.firing).toBe(false);
    expect(await outboxRows("arbitrum")).not.toContainEqual(expect.objectContaining({ ref: id }));

    await fund("arbitrum", 5_000_000n);
    await driveUntil("arbitrum", id);
    expect(await tokenBalance("arbitrum", payee)).toBe(balance + 5_000_000n);
    expect(alert("payout_float_low:arbitrum")).toBeDefined();
    const after = await readAlertConditions(t.ctx, {});
    expect(after.find((r) => r.key === "payout_float_low:arbitrum")?.firing).toBe(false);
  });

  it("counts a payout mined before the outbox looked as paid in the balance: the next one the rest covers is sent at once", async () => {
    await fund("arbitrum", 5_000_000n);
    const balance = await tokenBalance("arbitrum", hot.address);
    const payeeA = Wallet.createRandom().address;
    const payeeB = Wallet.createRandom().address;
    const payeeC = Wallet.createRandom().address;
    const a = await createPayout("arbitrum", formatAmount(balance - 2_000_000n), payeeA);
    await approve(a);
    expect((await runEvmPayouts(t.ctx, "arbitrum", { owner: "test-sender" })).submitted).toBe(1);
    // A is in a block, so the balance has paid it; the outbox has not looked, so it is `broadcast`.
    await net("arbitrum").mine(1);
    expect(await tokenBalance("arbitrum", payeeA)).toBe(balance - 2_000_000n);
    expect((await outboxRows("arbitrum")).find((r) => r.ref === a)?.state).toBe("broadcast");
    // The dashboard reads the float by the sender's rule: 2 USDT available, nothing in flight.
    const panel = (await readPayoutFloat(t.ctx)).floats.find(
      (f) => f.chain === "arbitrum" && f.currency === "USDT",
    );
    expect([panel?.available, panel?.in_flight.amount]).toEqual(["2.000000", "0.000000"]);
    // B takes exactly what is left; C is more than is left and waits for a top-up.
    const b = await createPayout("arbitrum", "2.000000", payeeB);
    await approve(b);
    t.clock.advance(1_000); // C is approved after B, so the round takes B first
    const c = await createPayout("arbitrum", "0.000001", payeeC);
    await approve(c);
    const round = await runEvmPayouts(t.ctx, "arbitrum", { owner: "test-sender" });
    // Counted twice (in the balance and as the broadcast A), B would wait for the outbox's look.
    expect([round.submitted, round.waitingForFloat]).toEqual([1, 1]);
    expect((await payoutRow(b)).status).toBe("sending");
    expect([(await payoutRow(c)).status, (await payoutRow(c)).waitReason]).toEqual(["approved", "float_low"]);
    await driveUntil("arbitrum", b);
    expect(await tokenBalance("arbitrum", payeeB)).toBe(2_000_000n);
    expect(await tokenBalance("arbitrum", payeeA)).toBe(balance - 2_000_000n);
    expect(await tokenBalance("arbitrum", payeeC)).toBe(0n);
    // Cancelled, so later tests see no approved payout waiting.
    await decidePayout(t.ctx, {
      id: c,
      decision: "cancel",
      actor: { kind: "operator", id: "op-2", label: "second operator" },
    });
  });

  /** Submits an approved payout's transaction, then takes it out of the node's pool unmined. */
  async function submittedThenLost(amount: string, payee: string) {
    const id = await createPayout("arbitrum", amount, payee);
    await approve(id);
    expect((await runEvmPayouts(t.ctx, "arbitrum", { owner: "test-sender" })).submitted).toBe(1);
    const [first] = (await outboxRows("arbitrum")).filter((r) => r.ref === id);
    if (!first) throw new Error(`payout ${id} has no transaction`);
    await net("arbitrum").rpc("anvil_dropTransaction", [first.tx_hash]);
    return { id, first };
  }

  /** After the drop: the payout's transactions, and the payout paid once under the next ref. */
  async function paidOnceAfterDrop(id: string, payee: string, units: bigint, nonce: number) {
    const row = await driveUntil("arbitrum", id);
    const refs = [evmPayoutRef(id, 1), evmPayoutRef(id, 2)];
    expect(refs).toEqual([id, `${id}:2`]);
    const versions = (await outboxRows("arbitrum")).filter((r) => refs.includes(r.ref));
    expect(versions.map((v) => [v.ref, v.nonce, v.state])).toEqual([
      [id, String(nonce), "dropped"],
      [`${id}:2`, String(nonce + 1), "final"],
    ]);
    expect([row.attempts, row.txHash]).toEqual([2, versions[1]?.tx_hash]);
    expect(await tokenBalance("arbitrum", payee)).toBe(units);
    // More rounds send nothing more.
    await step("arbitrum");
    await step("arbitrum");
    expect(await tokenBalance("arbitrum", payee)).toBe(units);
    expect(await hotNonce("arbitrum")).toBe(nonce + 2);
    expect((await outboxRows("arbitrum")).filter((r) => refs.includes(r.ref))).toHaveLength(2);
  }

  it("re-sends a payout whose nonce another transaction used under the next ref, and pays it once", async () => {
    await fund("arbitrum", 10_000_000n);
    const payee = Wallet.createRandom().address;
    const { id, first } = await submittedThenLost("4.000001", payee);
    // Another transaction of the hot wallet's key takes the nonce (a second tool using the key).
    const provider = new JsonRpcProvider(net("arbitrum").rpcUrl, undefined, { staticNetwork: true });
    await new Wallet(hot.privateKey, provider).sendTransaction({
      to: hot.address,
      value: 0n,
      nonce: Number(first.nonce),
    });
    provider.destroy();
    await net("arbitrum").mine();
    expect(await hotNonce("arbitrum")).toBe(Number(first.nonce) + 1);
    const outcome = await pass("arbitrum");
    expect(outcome.dropped.map((r) => r.ref)).toEqual([id]);
    expect((await payoutRow(id)).status).toBe("sending");
    await paidOnceAfterDrop(id, payee, 4_000_001n, Number(first.nonce));
  });

  it("re-sends a payout whose nonce was filled after the node refused its bytes, and pays it once", async () => {
    await fund("arbitrum", 10_000_000n);
    const payee = Wallet.createRandom().address;
    const { id, first } = await submittedThenLost("2.5", payee);
    const [stored] = await queryRows<{ gas_limit: string; max_fee: string }>(
      t.ctx.db,
      sql`SELECT gas_limit::text AS gas_limit, max_fee_per_gas::text AS max_fee FROM evm_transactions
          WHERE tx_hash = ${first.tx_hash}`,
    );
    // The hot wallet can no longer pay the payout's gas (the node refuses its bytes), only a
    // 21,000-gas fill at a replacement's price.
    const wei = (BigInt(stored?.gas_limit ?? 0) * BigInt(stored?.max_fee ?? 0) * 3n) / 5n;
    await net("arbitrum").rpc("anvil_setBalance", [hot.address, "0x" + wei.toString(16)]);
    const outcome = await pass("arbitrum", { recheckAfterMs: 0 });
    expect([outcome.filled, outcome.dropped.map((r) => r.ref)]).toEqual([1, [id]]);
    await net("arbitrum").mine();
    await pass("arbitrum");
    expect(await hotNonce("arbitrum")).toBe(Number(first.nonce) + 1);
    expect(await tokenBalance("arbitrum", payee)).toBe(0n);
    await net("arbitrum").rpc("anvil_setBalance", [hot.address, "0x" + (100n * ETH).toString(16)]);
    await paidOnceAfterDrop(id, payee, 2_500_000n, Number(first.nonce));
  });
});
