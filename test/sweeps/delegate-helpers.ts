/**
 * Delegate-mode test scaffolding: a hot wallet that stakes TRX for energy (and bandwidth) through
 * TronWeb, unmodified, on the devnet; reads of the chain's delegations; the sweeper driven until a
 * settlement ends.
 */
import { eq } from "drizzle-orm";
import { TronWeb } from "tronweb";
import type { Context } from "../../src/context.js";
import { settlements, sweepCosts, sweepTransactions } from "../../src/db/schema.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";

export async function newAccount() {
  const account = await TronWeb.createAccount();
  return { privateKey: account.privateKey, address: account.address.base58 };
}

/**
 * A chain test whose service holds a fresh hot wallet and sends to a fresh cold address, with `env`
 * on top; `fund` (TRX, USDT) goes to the hot wallet and is solidified before it returns.
 */
export async function startWalletChainTest(
  env: Record<string, string>,
  fund?: { trx: string; usdt?: string },
) {
  const hot = await newAccount();
  const cold = await newAccount();
  const t = await startChainTest({
    env: { HOT_WALLET_PRIVATE_KEY: hot.privateKey, COLD_WALLET_ADDRESS: cold.address, ...env },
  });
  if (fund) await t.devnetPost("/devnet/fund", { address: hot.address, ...fund, solidify: true });
  return { t, hot, cold };
}

/** Stakes `trx` for `resource` from `key`'s account with TronWeb, mined and solidified. */
export async function stake(
  t: ChainTest,
  key: string,
  trx: number,
  resource: "ENERGY" | "BANDWIDTH" = "ENERGY",
): Promise<void> {
  const address = TronWeb.address.fromPrivateKey(key) as string;
  const tx = await t.tw.transactionBuilder.freezeBalanceV2(trx * 1_000_000, resource, address);
  const signed = await t.tw.trx.sign(tx, key);
  const sent = await t.tw.trx.sendRawTransaction(signed);
  if (!sent.result) throw new Error(`freezeBalanceV2 refused: ${JSON.stringify(sent)}`);
  t.devnet.mine(SOLIDIFY_AFTER + 1);
}

/** Staked sun `from` delegates to `to` for energy, as the chain (read through TronWeb) says. */
export async function delegatedEnergyStake(t: ChainTest, from: string, to: string): Promise<bigint> {
  // The head's state (TronWeb asks the solidified chain unless told otherwise).
  const answer = (await t.tw.trx.getDelegatedResourceV2(from, to, { confirmed: false })) as {
    delegatedResource?: { frozen_balance_for_energy?: number }[];
  };
  return (answer.delegatedResource ?? []).reduce(
    (sum, r) => sum + BigInt(r.frozen_balance_for_energy ?? 0),
    0n,
  );
}

export async function trxBalance(t: ChainTest, address: string): Promise<bigint> {
  const account = await t.ctx.chain.client.getAccount(address);
  return BigInt(account?.balance ?? 0);
}

export async function settlementOf(t: ChainTest, orderId: string) {
  const [row] = await t.ctx.db.select().from(settlements).where(eq(settlements.orderId, orderId));
  return row;
}

export async function costsOf(t: ChainTest, orderId: string) {
  return t.ctx.db.select().from(sweepCosts).where(eq(sweepCosts.orderId, orderId));
}

export async function ledgerOf(t: ChainTest, settlementId: string) {
  return t.ctx.db.select().from(sweepTransactions).where(eq(sweepTransactions.settlementId, settlementId));
}

/** Mines a block, moves the clock past any wait and runs the sweeper until the settlement ends. */
export async function sweepUntilSettled(t: ChainTest, orderId: string, rounds = 30, ctx: Context = t.ctx) {
  for (let i = 0; i < rounds; i++) {
    t.devnet.mine(1);
    t.clock.advance(61_000);
    await runDueSweeps(ctx);
    const row = await settlementOf(t, orderId);
    if (row?.status === "completed" || row?.status === "failed") return row;
  }
  return settlementOf(t, orderId);
}

export async function paidOrder(t: ChainTest, amount: string, micro: bigint) {
  const order = await t.order(amount);
  await t.pay(order.address, micro);
  t.mine(1);
  await t.finalize();
  return order;
}
