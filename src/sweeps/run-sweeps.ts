/**
 * The sweeper (DESIGN.md 7): moves each confirmed order's USDT from its deposit address to
 * COLD_WALLET_ADDRESS. A settlement walks the steps of its mode's plan (burn-plan.ts), one claim at
 * a time, under a lease. This file is the step engine: claim, run steps until one waits or the plan
 * ends, save after each step, and hand failures to recordSweepFailure (backoff, sweep_failed).
 */
import type { SweepMode } from "../config.js";
import type { Context } from "../context.js";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { burnPlan } from "./burn-plan.js";
import { delegatePlan } from "./delegate-plan.js";
import { recordSweepFailure } from "./record-sweep-failure.js";
import {
  applyPatch,
  claimDueSettlements,
  finishSettlement,
  saveAfterStep,
  savePatch,
} from "./settlement-store.js";
import {
  SweepError,
  type SettlementRow,
  type SweepDeps,
  type SweepPlan,
  type SweepStep,
} from "./sweep-types.js";

export { SWEEP_LEASE_MS } from "./settlement-store.js";
export { SWEEP_NODE_RETRY_MS } from "./record-sweep-failure.js";

/** How soon to look again at a transaction waiting for the solidified chain. */
export const SWEEP_WAIT_MS = 3_000;
/** Steps run per claim at most: a wait or the end of the plan stops sooner. */
const MAX_STEPS_PER_CLAIM = 8;

export interface SweepRunResult {
  claimed: number;
  completed: number;
  failed: number;
}

/**
 * The sweeper's wallets and node, or null where this process does not sweep. The node is pinned
 * for the run: every call goes to the one node the pool prefers now, never to another mid-judgement
 * (sweep-chain.ts `landing`).
 */
export function sweepDeps(ctx: Context, owner: string): SweepDeps | null {
  const { config } = ctx;
  const usdt = ctx.chain.usdtContract;
  if (!config.sweepEnabled || !usdt || !config.coldWalletAddress || !config.hotWalletPrivateKey) return null;
  if (!config.walletMnemonic) return null;
  return {
    ctx,
    client: ctx.chain.client.select(),
    usdt,
    cold: config.coldWalletAddress,
    hotKey: config.hotWalletPrivateKey,
    hotAddress: addressFromPrivateKey(config.hotWalletPrivateKey),
    mnemonic: config.walletMnemonic,
    owner,
  };
}

/** Claims up to `limit` due settlements and advances each as far as the chain allows now. */
export async function runDueSweeps(
  ctx: Context,
  options: {
    limit?: number;
    owner?: string;
    /** Told each step of each sweep transaction (the crash tests die at one). */
    onStep?: (step: SweepStep, kind: string, settlementId: string) => void | Promise<void>;
  } = {},
): Promise<SweepRunResult> {
  const result: SweepRunResult = { claimed: 0, completed: 0, failed: 0 };
  const owner = options.owner ?? `sweeper-${process.pid}`;
  const deps = sweepDeps(ctx, owner);
  if (!deps) return result;
  const d: SweepDeps = { ...deps, onStep: options.onStep };
  const claimed = await claimDueSettlements(ctx, owner, options.limit ?? 10);
  result.claimed = claimed.length;
  for (const row of claimed) {
    // Every line this settlement's step logs names it and its order.
    const log = ctx.log.child({ settlementId: row.id, orderId: row.order_id });
    const outcome = await advance({ ...d, ctx: { ...ctx, log } }, row);
    if (outcome === "completed") result.completed++;
    if (outcome === "failed") result.failed++;
  }
  return result;
}

const PLANS: Record<SweepMode, SweepPlan> = { burn: burnPlan, delegate: delegatePlan };

async function advance(d: SweepDeps, row: SettlementRow): Promise<"completed" | "failed" | "pending"> {
  // A round keeps the mode it started with, whatever SWEEP_MODE says later.
  const mode = row.mode ?? d.ctx.config.sweepMode;
  const plan = PLANS[mode];
  let step = row.step !== null && row.step in plan.steps ? row.step : plan.first;
  let current = row;
  try {
    if (row.mode === null) {
      await savePatch(d, current, { mode });
      current = applyPatch(current, { mode });
    }
    for (let i = 0; i < MAX_STEPS_PER_CLAIM; i++) {
      const handler = plan.steps[step];
      if (!handler) throw new SweepError(`settlement is at unknown step ${step}`);
      const result = await handler(d, current);
      if (result.kind === "done") {
        await finishSettlement(d, current, result.patch, result.event, result.again === true);
        return "completed";
      }
      if (result.kind === "wait") {
        await saveAfterStep(d, current, { step, ...result.patch }, result.delayMs ?? SWEEP_WAIT_MS);
        return "pending";
      }
      const patch = { ...result.patch, step: result.step };
      await saveAfterStep(d, current, patch, 0);
      current = applyPatch(current, patch);
      step = result.step;
    }
    return "pending";
  } catch (error) {
    return recordSweepFailure(d, current, step, error);
  }
}
