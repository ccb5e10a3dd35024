/**
 * Burn mode (DESIGN.md 7): the deposit address burns TRX for its transfer's energy and bandwidth, so
 * the hot wallet first sends it exactly what is missing.
 *
 *   fund        read the USDT balance, estimate the transfer's energy at the chain's prices, and
 *               sign a TRX transfer of exactly what is missing from the hot wallet (skipped when the
 *               address holds enough TRX already)
 *   fund_sent   wait until that transfer is in the solidified chain
 *   sweep       sign the transfer of the whole USDT balance (sweep-transfer.ts)
 *   sweep_sent  wait until it is solidified with a SUCCESS receipt -> completed, `sweep_completed`
 */
import { sweepableAmount } from "./sweepable-amount.js";
import { signTransaction } from "@stablegate/tron/sign";
import { buildTrxTransfer } from "@stablegate/tron/transaction";
import { landing, signStoreBroadcast, transferCost } from "./sweep-chain.js";
import { planFunding } from "./sweep-plan.js";
import { awaitSweep, signSweep } from "./sweep-transfer.js";
import type { SettlementRow, StepResult, SweepDeps, SweepPlan } from "./sweep-types.js";

/** What a fresh account may use each day for free (java-tron's free net limit). */
export const FRESH_ACCOUNT_FREE_BANDWIDTH = 600n;

/**
 * Sends the deposit address the TRX its sweep will burn. `then` is where a settlement goes once it
 * holds enough (the sweep, in burn mode).
 */
export async function fund(d: SweepDeps, row: SettlementRow): Promise<StepResult> {
  const balance = await sweepableAmount(d, row);
  if (balance < d.ctx.config.sweepMinUsdt) {
    // Dust stays where it is: sweeping it would cost more than it is worth.
    return { kind: "done", patch: { step: "below_minimum", amount: balance } };
  }
  const [cost, account] = await Promise.all([
    transferCost(d, row.address, balance),
    d.client.getAccount(row.address),
  ]);
  let freeBandwidth = FRESH_ACCOUNT_FREE_BANDWIDTH;
  if (account) {
    const resource = await d.client.getAccountResource(row.address);
    freeBandwidth = BigInt(Math.max(0, (resource.freeNetLimit ?? 0) - (resource.freeNetUsed ?? 0)));
  }
  const plan = planFunding({ ...cost, freeBandwidth, balanceSun: BigInt(account?.balance ?? 0) });
  if (plan.sendSun === 0n) return { kind: "next", step: "sweep", patch: { amount: balance, fee_trx: 0n } };
  return signStoreBroadcast(
    d,
    row,
    { kind: "fund", address: row.address, createsAccount: account === null },
    (ref) =>
      signTransaction(
        buildTrxTransfer({
          from: d.hotAddress,
          to: row.address,
          amount: plan.sendSun,
          refBlock: ref,
          nowMs: ref.timestamp,
        }),
        d.hotKey,
      ),
    (signed) => ({
      step: "fund_sent",
      amount: balance,
      fee_trx: plan.sendSun,
      fee_tx_hash: signed.txID,
      fee_tx_signed: signed,
    }),
  );
}

export async function awaitFunding(d: SweepDeps, row: SettlementRow): Promise<StepResult> {
  if (!row.fee_tx_signed) return { kind: "next", step: "fund" };
  const state = await landing(d, row.fee_tx_signed);
  if (state.state === "solid") return { kind: "next", step: "sweep" };
  return state.state === "expired" ? { kind: "next", step: "fund" } : { kind: "wait" };
}

export const burnPlan: SweepPlan = {
  first: "fund",
  steps: {
    fund,
    fund_sent: awaitFunding,
    sweep: signSweep,
    sweep_sent: (d, row) => awaitSweep(d, row, { restart: "fund", after: null }),
  },
};
