/**
 * Delegate mode (DESIGN.md 7b): the hot wallet stakes TRX for energy (FreezeBalanceV2, done by the
 * operator) and lends each sweep exactly the energy it needs, so a reused address sweeps for nothing
 * and a fresh one for its activation alone.
 *
 *   activate         read the USDT balance; when the address has no account yet (or too little free
 *                    bandwidth for its transfer), send it the minimum from the hot wallet
 *   activate_sent    wait until that transfer is in a block
 *   delegate         delegate the transfer's energy plus a margin, less what the address already
 *                    has, from the hot wallet's stake (DelegateResource), reserved under a lock so
 *                    concurrent sweeps never over-commit it; when the stake is short,
 *                    SWEEP_DELEGATE_FALLBACK decides: `burn` (fund as burn mode does) or `wait`
 *   delegate_sent    wait until the delegation is in a block
 *   sweep, sweep_sent   the USDT transfer (sweep-transfer.ts), until it is solidified
 *   undelegate       take back everything the hot wallet delegates to the address (UnDelegateResource)
 *   undelegate_sent  wait until that is solidified -> completed, `sweep_completed`
 *
 * The activation and the delegation are waited for in a block, not solidified: the sweep cannot
 * land before them, and should a fork drop them, the sweep fails on chain for want of energy (the
 * address holds no TRX to burn) and the settlement starts again from `activate`. Only the sweep
 * itself and the undelegation are waited for until solid. A crash anywhere leaves at most a
 * delegation that the reconciler (reconcile-delegations.ts) takes back.
 */
import { sweepableAmount } from "./sweepable-amount.js";
import { sql } from "drizzle-orm";
import { LOCK_KEYS } from "../db/locks.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { signTransaction } from "@stablegate/tron/sign";
import {
  buildDelegateResource,
  buildTrxTransfer,
  buildUnDelegateResource,
} from "@stablegate/tron/transaction";
import { awaitFunding, fund } from "./burn-plan.js";
import { landing, signStoreBroadcast, transferCost } from "./sweep-chain.js";
import { latestLedgerTx } from "./sweep-ledger.js";
import {
  SWEEP_TX_BYTES,
  energyOfStake,
  energyWithMargin,
  stakeForEnergy,
  type EnergyEconomy,
} from "./sweep-plan.js";
import { awaitSweep, signSweep, sweptResult } from "./sweep-transfer.js";
import type { SettlementRow, StepResult, SweepDeps, SweepPlan } from "./sweep-types.js";

/** What an activation sends: the least TronWeb or java-tron accept; the fee is the cost. */
export const ACTIVATION_SUN = 1n;
/** How soon to look again at a transaction that only needs to be in a block. */
export const DELEGATE_WAIT_MS = 1_000;
/** SWEEP_DELEGATE_FALLBACK=wait: how soon to look at the stake again. */
export const STAKE_WAIT_MS = 60_000;

async function activate(d: SweepDeps, row: SettlementRow): Promise<StepResult> {
  const balance = await sweepableAmount(d, row);
  if (balance < d.ctx.config.sweepMinUsdt) {
    return { kind: "done", patch: { step: "below_minimum", amount: balance } };
  }
  const account = await d.client.getAccount(row.address);
  let sendSun = account ? 0n : ACTIVATION_SUN;
  if (account) {
    // A second sweep on one day may find the free bandwidth spent: then it pays its bytes in TRX.
    const resource = await d.client.getAccountResource(row.address);
    const free = BigInt((resource.freeNetLimit ?? 0) - (resource.freeNetUsed ?? 0));
    const staked = BigInt((resource.NetLimit ?? 0) - (resource.NetUsed ?? 0));
    if (free < SWEEP_TX_BYTES && staked < SWEEP_TX_BYTES) {
      const params = await d.client.getChainParameters();
      const need = SWEEP_TX_BYTES * BigInt(params.getTransactionFee ?? 1000);
      const held = BigInt(account.balance ?? 0);
      sendSun = need > held ? need - held : 0n;
    }
  }
  if (sendSun === 0n) return { kind: "next", step: "delegate", patch: { amount: balance } };
  return signStoreBroadcast(
    d,
    row,
    { kind: "activate", address: row.address, createsAccount: account === null },
    (ref) =>
      signTransaction(
        buildTrxTransfer({
          from: d.hotAddress,
          to: row.address,
          amount: sendSun,
          refBlock: ref,
          nowMs: ref.timestamp,
        }),
        d.hotKey,
      ),
    (signed) => ({
      step: "activate_sent",
      amount: balance,
      fee_trx: sendSun,
      fee_tx_hash: signed.txID,
      fee_tx_signed: signed,
    }),
  );
}

/**
 * Waits for the stored transaction of `kind` to be in a block (or solid, with `solid`); builds it
 * again at `retry` when it expired unseen or was never stored.
 */
async function awaitLedgerTx(
  d: SweepDeps,
  row: SettlementRow,
  kind: "activate" | "delegate" | "undelegate",
  retry: string,
  solid = false,
): Promise<StepResult | "landed"> {
  const tx = await latestLedgerTx(d, row, kind);
  if (!tx) return { kind: "next", step: retry };
  const state = await landing(d, tx.signed);
  if (state.state === "solid" || (state.state === "included" && !solid)) return "landed";
  if (state.state === "expired") return { kind: "next", step: retry };
  return { kind: "wait", delayMs: DELEGATE_WAIT_MS };
}

async function awaitActivation(d: SweepDeps, row: SettlementRow): Promise<StepResult> {
  const result = await awaitLedgerTx(d, row, "activate", "activate");
  return result === "landed" ? { kind: "next", step: "delegate" } : result;
}

async function economy(d: SweepDeps): Promise<EnergyEconomy> {
  const resource = await d.client.getAccountResource(d.hotAddress);
  return {
    totalEnergyLimit: BigInt(resource.TotalEnergyLimit ?? 0),
    totalEnergyWeight: BigInt(resource.TotalEnergyWeight ?? 0),
  };
}

/**
 * Stake the hot wallet may still delegate: what the node says it can, less the delegations any
 * worker has stored but the node has not yet accepted (it cannot know of them). A node applies an
 * accepted transaction to its pending state at once, as java-tron does, so an accepted delegation is
 * in its answer already; one accepted but not yet marked `sent` is counted twice: too careful,
 * never too bold.
 */
async function freeStake(d: SweepDeps, tx: Executor): Promise<bigint> {
  const max = BigInt(await d.client.getCanDelegatedMaxSize(d.hotAddress, "ENERGY"));
  const nowMs = d.ctx.clock.now().getTime();
  const [unseen] = await queryRows<{ sun: string }>(
    tx,
    sql`SELECT COALESCE(sum(stake_sun), 0)::text AS sun FROM sweep_transactions
      WHERE kind = 'delegate' AND state = 'signed'
        AND (signed -> 'raw_data' ->> 'expiration')::bigint > ${nowMs}`,
  );
  return max - BigInt(unseen?.sun ?? 0);
}

async function delegate(d: SweepDeps, row: SettlementRow): Promise<StepResult> {
  const balance = await sweepableAmount(d, row);
  const [cost, resource, econ] = await Promise.all([
    transferCost(d, row.address, balance),
    d.client.getAccountResource(row.address),
    economy(d),
  ]);
  const need = energyWithMargin(cost.energy);
  const has = BigInt(Math.max(0, (resource.EnergyLimit ?? 0) - (resource.EnergyUsed ?? 0)));
  if (has >= need) return { kind: "next", step: "sweep", patch: { amount: balance } };
  const stakeSun = stakeForEnergy(need - has, econ);
  const energy = energyOfStake(stakeSun, econ);
  let short = false;
  const result = await signStoreBroadcast(
    d,
    row,
    { kind: "delegate", address: row.address, stakeSun, energy },
    (ref) =>
      signTransaction(
        buildDelegateResource({
          owner: d.hotAddress,
          receiver: row.address,
          balance: stakeSun,
          resource: "ENERGY",
          refBlock: ref,
          nowMs: ref.timestamp,
        }),
        d.hotKey,
      ),
    () => ({ step: "delegate_sent", amount: balance }),
    async (tx) => {
      // One reservation at a time across every worker: the lock is held until the row is stored.
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${LOCK_KEYS.sweepStake})`);
      short = (await freeStake(d, tx)) < stakeSun;
      return !short;
    },
  );
  if (!short) return result;
  const fallback = d.ctx.config.sweepDelegateFallback;
  d.ctx.log.warn({ orderId: row.order_id, stakeSun: String(stakeSun), fallback }, "stake is short");
  if (fallback === "burn") return { kind: "next", step: "fund", patch: { amount: balance } };
  return { kind: "wait", delayMs: STAKE_WAIT_MS };
}

async function awaitDelegation(d: SweepDeps, row: SettlementRow): Promise<StepResult> {
  const result = await awaitLedgerTx(d, row, "delegate", "delegate");
  return result === "landed" ? { kind: "next", step: "sweep" } : result;
}

/** Staked sun the hot wallet delegates to `address` for energy now (the chain's own record). */
export async function delegatedTo(d: Pick<SweepDeps, "client" | "hotAddress">, address: string) {
  const delegations = await d.client.getDelegatedResourceV2(d.hotAddress, address);
  return delegations.reduce((sum, r) => sum + BigInt(r.frozen_balance_for_energy ?? 0), 0n);
}

async function undelegate(d: SweepDeps, row: SettlementRow): Promise<StepResult> {
  const stakeSun = await delegatedTo(d, row.address);
  if (stakeSun === 0n) return finishDelegated(d, row);
  return signStoreBroadcast(
    d,
    row,
    { kind: "undelegate", address: row.address, stakeSun, energy: energyOfStake(stakeSun, await economy(d)) },
    (ref) =>
      signTransaction(
        buildUnDelegateResource({
          owner: d.hotAddress,
          receiver: row.address,
          balance: stakeSun,
          resource: "ENERGY",
          refBlock: ref,
          nowMs: ref.timestamp,
        }),
        d.hotKey,
      ),
    () => ({ step: "undelegate_sent" }),
  );
}

async function awaitUndelegation(d: SweepDeps, row: SettlementRow): Promise<StepResult> {
  const result = await awaitLedgerTx(d, row, "undelegate", "undelegate", true);
  // Landed, or the delegation is gone some other way (the reconciler): check the chain's record.
  return result === "landed" ? { kind: "next", step: "undelegate" } : result;
}

async function finishDelegated(d: SweepDeps, row: SettlementRow): Promise<StepResult> {
  if (!row.sweep_tx_signed) return { kind: "next", step: "sweep" };
  // swept_at stays the moment the sweep was seen solid, not the end of the clean-up.
  const sweptAt = row.swept_at === null ? d.ctx.clock.now() : new Date(Number(row.swept_at));
  return sweptResult(d, row, row.sweep_tx_signed, sweptAt);
}

export const delegatePlan: SweepPlan = {
  first: "activate",
  steps: {
    activate,
    activate_sent: awaitActivation,
    delegate,
    delegate_sent: awaitDelegation,
    // SWEEP_DELEGATE_FALLBACK=burn: the address pays its energy in TRX, as in burn mode.
    fund,
    fund_sent: awaitFunding,
    sweep: signSweep,
    sweep_sent: (d, row) => awaitSweep(d, row, { restart: "activate", after: "undelegate" }),
    undelegate,
    undelegate_sent: awaitUndelegation,
  },
};
