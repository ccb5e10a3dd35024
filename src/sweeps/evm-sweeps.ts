/**
 * The EVM sweeper (DESIGN.md 16 "Money out", docs/evm-sweeps.md): one loop per EVM chain moves each
 * final outcome's token balance from its deposit address to the chain's cold wallet, through the
 * EVM outbox (src/outbox/). A settlement's round plans one leg per token the address holds at or
 * above SWEEP_MIN_USDT (evm_sweep_legs, migration 0031), then walks each leg:
 *
 *   planned    the figures (gas estimate + margin, fee caps, the address's ETH, the top-up) are
 *              stored, then the top-up is submitted (purpose `sweep_gas`, the hot wallet);
 *   gas_sent   once the top-up is included with success, the deposit key's transfer of the whole
 *              balance is submitted (purpose `sweep`) with exactly the caps the top-up paid for;
 *   sweep_sent once the sweep is final, its Transfer to the cold wallet is checked, and what both
 *              cost (gas used x effective gas price, from the receipts) and the ETH left on the
 *              address at the sweep's block are recorded: swept. Until it is included, a sweep
 *              the base fee outran is topped up and replaced at the same nonce (evm-sweep-bump.ts).
 *
 * Exactly once through crashes: every figure a transaction is built from is stored before it is
 * submitted, and submit() is idempotent on (purpose, ref), ref = settlement:round:currency:attempt,
 * so a restarted worker re-submits and gets the stored transaction back. A top-up whose nonce the
 * outbox lost (`dropped`) or a sweep that failed on chain plans the leg again under attempt + 1.
 */
import { delegationCode, sweepCalldata, sweeperRuntimeCode } from "@stablegate/devnet";
import { sql } from "drizzle-orm";
import type { Chain } from "../chains/chain.js";
import type { ChainId } from "../chains/chain-types.js";
import { microToUnits, unitsToMicro } from "../chains/token-units.js";
import type { EvmSweepMode } from "../config/evm.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { formatAmount } from "../money.js";
import { appendOrderEvent } from "../orders/transitions.js";
import { hotWalletSigner } from "../outbox/signers.js";
import { outboxTransaction, submit } from "../outbox/submit.js";
import { bumpStuckSweep, topupRefs } from "./evm-sweep-bump.js";
import {
  depositSigner,
  EVM_SWEEP_WAIT_MS,
  type EvmSweepDeps,
  GAS_MARGIN_PERCENT,
  HOT_WALLET_RETRY_MS,
  hotWalletCanPay,
  isStaticRow,
  type Leg,
  type LegNext,
  legsOf,
  refOf,
  sweepCaps,
  TOPUP_GAS,
  updateLeg,
} from "./evm-sweep-legs.js";
import { recordSweepFailure } from "./record-sweep-failure.js";
import { claimDueSettlements, updateLeased } from "./settlement-store.js";
import { SweepError, type SettlementRow } from "./sweep-types.js";
import type { SweepRunResult } from "./run-sweeps.js";

export type { EvmSweepDeps, EvmSweepStep } from "./evm-sweep-legs.js";

const MAX_STEPS_PER_CLAIM = 12;

/** The cold wallet of an EVM chain: <CHAIN>_COLD_WALLET_ADDRESS, else EVM_COLD_WALLET_ADDRESS. */
export function evmColdWallet(ctx: Context, chainId: ChainId): string | undefined {
  const chain = ctx.config.evmChains.find((c) => c.id === chainId);
  return (chain?.coldWalletAddress ?? ctx.config.evmWallet.coldWalletAddress)?.toLowerCase();
}

/** The sweeper's wallets for `chainId`, or null where this process does not sweep it. */
export function evmSweepDeps(ctx: Context, chainId: ChainId, owner: string): EvmSweepDeps | null {
  const chain = ctx.chains.get(chainId);
  const nonces = chain?.nonces;
  const cold = evmColdWallet(ctx, chainId);
  const mnemonic = ctx.config.walletMnemonic;
  if (!chain || !nonces || !cold || !mnemonic || !ctx.config.sweepEnabled) return null;
  if (ctx.config.evmWallet.hotWalletPrivateKey === undefined) return null;
  const sweeper = ctx.config.evmChains.find((c) => c.id === chainId)?.sweeperContract?.toLowerCase();
  return { ctx, chain, nonces, hot: hotWalletSigner(ctx, chainId), cold, mnemonic, sweeper, owner };
}

/** The token balances worth a sweep now (at or above SWEEP_MIN_USDT), whole, in token units. */
async function sweepableBalances(d: EvmSweepDeps, address: string) {
  const out = [];
  // Loaded first: a worker that never scans this chain has not read the tokens' decimals yet.
  for (const token of await d.chain.loadTokens()) {
    const units = await d.nonces.tokenBalance(token.contract, address);
    if (units > 0n && unitsToMicro(units, token.decimals).micro >= d.ctx.config.sweepMinUsdt)
      out.push({ ...token, units });
  }
  return out;
}

/** Claims up to `limit` due settlements of `chainId` and advances each as far as the chain allows. */
export async function runDueEvmSweeps(
  ctx: Context,
  chainId: ChainId,
  options: {
    limit?: number;
    owner?: string;
    onStep?: EvmSweepDeps["onStep"];
    /** When a deposit address's sweep below the market is replaced (default: the outbox's rule). */
    replace?: EvmSweepDeps["replace"];
  } = {},
): Promise<SweepRunResult> {
  const result: SweepRunResult = { claimed: 0, completed: 0, failed: 0 };
  const owner = options.owner ?? `evm-sweeper-${process.pid}`;
  const deps = evmSweepDeps(ctx, chainId, owner);
  if (!deps) return result;
  const claimed = await claimDueSettlements(ctx, owner, options.limit ?? 10, chainId);
  result.claimed = claimed.length;
  for (const row of claimed) {
    const log = ctx.log.child({ settlementId: row.id, orderId: row.order_id, chain: chainId });
    const d: EvmSweepDeps = {
      ...deps,
      ctx: { ...ctx, log },
      onStep: options.onStep,
      replace: options.replace,
    };
    const outcome = await advance(d, row);
    if (outcome === "completed") result.completed++;
    if (outcome === "failed") result.failed++;
  }
  return result;
}

async function advance(d: EvmSweepDeps, row: SettlementRow): Promise<"completed" | "failed" | "pending"> {
  const { ctx } = d;
  // A round keeps the mode it started with, whatever EVM_SWEEP_MODE says later.
  const mode = (row.mode as EvmSweepMode | null) ?? ctx.config.evmWallet.sweepMode;
  let step = row.step ?? "plan";
  try {
    if (row.mode === null) await updateLeased(d, ctx.db, row, sql`mode = ${mode}, status = 'active'`);
    for (let i = 0; i < MAX_STEPS_PER_CLAIM; i++) {
      if (step === "plan") {
        const planned = await plan(d, row, mode);
        if (!planned) return finish(d, row, "below_minimum");
        step = "legs";
        continue;
      }
      const leg = (await legsOf(ctx, row)).find((l) => l.state !== "swept");
      if (!leg) return finish(d, row, "swept");
      const next = await advanceLeg(d, row, leg, mode);
      if (next !== "go") {
        const at = new Date(ctx.clock.now().getTime() + next.waitMs).toISOString();
        await updateLeased(
          d,
          ctx.db,
          row,
          sql`status = 'active', next_attempt_at = ${at}::timestamptz, lease_owner = NULL, lease_expires_at = NULL`,
        );
        return "pending";
      }
    }
    return "pending";
  } catch (error) {
    return recordSweepFailure(d, row, step, error);
  }
}

/**
 * A static deposit address (DESIGN.md 15) is swept by its deposits, as on TRON
 * (src/sweeps/sweepable-amount.ts): the round marks this chain's confirmed deposits not yet swept
 * with (settlement, round), in the transaction that stores its legs, and each token's leg moves
 * exactly their sum. A deposit still unconfirmed waits for the next round.
 */
async function markStaticDeposits(
  d: EvmSweepDeps,
  tx: Executor,
  row: SettlementRow,
  tokens: Awaited<ReturnType<Chain["loadTokens"]>>,
) {
  const now = d.ctx.clock.now().toISOString();
  await tx.execute(sql`UPDATE deposits SET settlement_id = ${row.id}::uuid, sweep_round = ${row.round},
      updated_at = ${now}::timestamptz
    WHERE to_address = ${row.address} AND chain = ${d.chain.id} AND status = 'confirmed' AND settlement_id IS NULL`);
  const sums = await queryRows<{ currency: string; total: string }>(
    tx,
    sql`SELECT currency, sum(amount)::text AS total FROM deposits
        WHERE settlement_id = ${row.id}::uuid AND sweep_round = ${row.round} GROUP BY currency ORDER BY currency`,
  );
  return sums.flatMap((s) => {
    const token = tokens.find((t) => t.currency === s.currency);
    if (!token) throw new SweepError(`no ${s.currency} token is configured on ${d.chain.id}`);
    const units = microToUnits(BigInt(s.total), token.decimals);
    return units > 0n ? [{ ...token, units }] : [];
  });
}

/** Whether this chain's confirmed deposits to a static address not yet swept reach SWEEP_MIN_USDT. */
async function staticDue(d: EvmSweepDeps, row: SettlementRow): Promise<boolean> {
  const [rest] = await queryRows<{ total: string | null }>(
    d.ctx.db,
    sql`SELECT sum(amount)::text AS total FROM deposits
        WHERE to_address = ${row.address} AND chain = ${d.chain.id} AND status = 'confirmed' AND settlement_id IS NULL`,
  );
  return BigInt(rest?.total ?? "0") >= d.ctx.config.sweepMinUsdt;
}

/** Plans the round's legs (one statement with the step): false when no token is worth a sweep. */
async function plan(d: EvmSweepDeps, row: SettlementRow, mode: EvmSweepMode): Promise<boolean> {
  // The chain is read before the transaction, so none is held open over an RPC call.
  const tokens = isStaticRow(row) ? await d.chain.loadTokens() : null;
  const held = tokens ? null : await sweepableBalances(d, row.address);
  const now = d.ctx.clock.now().toISOString();
  return d.ctx.db.transaction(async (tx) => {
    const balances = held ?? (await markStaticDeposits(d, tx, row, tokens ?? []));
    for (const b of balances) {
      await tx.execute(sql`INSERT INTO evm_sweep_legs (settlement_id, round, currency, chain, mode, address, token,
          units, decimals, state, created_at, updated_at)
        VALUES (${row.id}::uuid, ${row.round}, ${b.currency}, ${d.chain.id}, ${mode}, ${row.address},
          ${b.contract.toLowerCase()}, ${b.units.toString()}::numeric, ${b.decimals}, 'planned',
          ${now}::timestamptz, ${now}::timestamptz)
        ON CONFLICT (settlement_id, round, currency) DO NOTHING`);
    }
    if (balances.length > 0) await updateLeased(d, tx, row, sql`step = 'legs', status = 'active'`);
    return balances.length > 0;
  });
}

async function advanceLeg(
  d: EvmSweepDeps,
  row: SettlementRow,
  leg: Leg,
  mode: EvmSweepMode,
): Promise<LegNext> {
  if (leg.state === "planned")
    return mode === "7702" ? sendDelegatedSweep(d, row, leg) : sendGas(d, row, leg);
  if (leg.state === "gas_sent") return sendSweep(d, row, leg);
  return awaitSweep(d, row, leg);
}

/** The top-up's figures, stored once per attempt; then the top-up itself (none when not needed). */
async function sendGas(d: EvmSweepDeps, row: SettlementRow, leg: Leg): Promise<LegNext> {
  const { nonces } = d;
  let current = leg;
  if (leg.gasLimit === null) {
    const data = nonces.transferData(d.cold, leg.units);
    const [estimate, market, held] = await Promise.all([
      nonces.estimateGas({ from: row.address, to: leg.token, data }),
      nonces.fees(),
      nonces.nativeBalance(row.address),
    ]);
    const gasLimit = (estimate * (100n + GAS_MARGIN_PERCENT) + 99n) / 100n;
    const { maxFeePerGas } = sweepCaps(market);
    const needed = gasLimit * maxFeePerGas;
    const topup = needed > held ? needed - held : 0n;
    // The hot wallet pays the top-up and its own gas (the outbox offers 2 x base fee + tip).
    if (!(await hotWalletCanPay(d, row, leg, market, topup))) return { waitMs: HOT_WALLET_RETRY_MS };
    await updateLeg(
      d,
      row,
      leg,
      sql`gas_estimate = ${estimate.toString()}, gas_limit = ${gasLimit.toString()},
        max_fee_per_gas = ${maxFeePerGas.toString()}::numeric, max_priority_fee_per_gas = ${market.tip.toString()}::numeric,
        held_wei = ${held.toString()}::numeric, topup_wei = ${topup.toString()}::numeric, hot_wallet_short_at = NULL`,
    );
    current = { ...leg, gasLimit, maxFeePerGas, maxPriorityFeePerGas: market.tip, topupWei: topup };
    await d.onStep?.("gas_stored", row.id);
  }
  if ((current.topupWei ?? 0n) > 0n) {
    await submit(d.ctx, d.chain.id, {
      purpose: "sweep_gas",
      ref: refOf(row, current),
      to: row.address,
      value: current.topupWei ?? 0n,
      gasLimit: TOPUP_GAS,
      signer: d.hot,
    });
  }
  await updateLeg(d, row, current, sql`state = 'gas_sent'`);
  await d.onStep?.("gas_sent", row.id);
  return "go";
}

/** Once the top-up is included with success: the deposit key's transfer of the whole balance. */
async function sendSweep(d: EvmSweepDeps, row: SettlementRow, leg: Leg): Promise<LegNext> {
  const ref = refOf(row, leg);
  if ((leg.topupWei ?? 0n) > 0n) {
    const gas = await outboxTransaction(d.ctx, d.chain.id, "sweep_gas", ref);
    if (!gas) throw new Error(`the top-up ${ref} is not in the outbox`);
    if (gas.state === "dropped") return replan(d, row, leg, "the top-up's nonce was lost");
    if (gas.state !== "included" && gas.state !== "final") return { waitMs: EVM_SWEEP_WAIT_MS };
  }
  if (leg.gasLimit === null || leg.maxFeePerGas === null || leg.maxPriorityFeePerGas === null)
    throw new SweepError("the sweep's gas figures are missing");
  const signer = depositSigner(d, row);
  await d.onStep?.("sweep_stored", row.id);
  const { transaction } = await submit(d.ctx, d.chain.id, {
    purpose: "sweep",
    ref,
    to: leg.token,
    data: d.nonces.transferData(d.cold, leg.units),
    gasLimit: leg.gasLimit,
    fees: { maxFeePerGas: leg.maxFeePerGas, maxPriorityFeePerGas: leg.maxPriorityFeePerGas },
    signer,
  });
  await d.onStep?.("sweep_submitted", row.id);
  await updateLeg(d, row, leg, sql`state = 'sweep_sent', sweep_tx_hash = ${transaction.hash}`);
  await d.onStep?.("sweep_sent", row.id);
  return "go";
}

/**
 * Gas limit of a 7702 sweep: the sweeper's call (a balanceOf and a transfer, about 35,000-60,000 gas)
 * plus 25,000 for an authorization, with room for a token whose transfer costs more. Only the gas
 * used is paid.
 */
const SWEEP_7702_GAS = 200_000n;

/**
 * 7702 mode: one transaction from the hot wallet to the deposit address calling `sweep(token)` on
 * the sweeper it delegates to, carrying the deposit key's authorization when the address is not
 * delegated to the sweeper yet. No gas is sent to the address. The sweeper's code is compared with
 * the one compiled for this cold wallet before any authorization is signed.
 */
async function sendDelegatedSweep(d: EvmSweepDeps, row: SettlementRow, leg: Leg): Promise<LegNext> {
  const { nonces } = d;
  const sweeper = d.sweeper;
  if (!sweeper)
    throw new SweepError(
      `EVM_SWEEP_MODE=7702 needs ${d.chain.id.toUpperCase()}_SWEEPER_CONTRACT or EVM_SWEEPER_CONTRACT`,
    );
  if ((await nonces.code(sweeper)) !== sweeperRuntimeCode(d.cold).toLowerCase())
    throw new SweepError(`the code at ${sweeper} is not the sweeper compiled for the cold wallet ${d.cold}`);
  const market = await nonces.fees();
  const cost = SWEEP_7702_GAS * (market.baseFee * 2n + market.tip);
  if ((await nonces.nativeBalance(d.hot.address)) < cost) {
    await updateLeg(
      d,
      row,
      leg,
      sql`hot_wallet_short_at = coalesce(hot_wallet_short_at, ${d.ctx.clock.now().toISOString()}::timestamptz)`,
    );
    d.ctx.log.warn(
      { chain: d.chain.id, hotWallet: d.hot.address },
      "sweep waits: the hot wallet cannot pay its gas",
    );
    return { waitMs: HOT_WALLET_RETRY_MS };
  }
  const delegated = (await nonces.code(row.address)) === delegationCode(sweeper).toLowerCase();
  // The address never sends a transaction itself: its nonce counts the delegations applied to it.
  const authorizations = delegated
    ? undefined
    : [await depositSigner(d, row).authorize(sweeper, await nonces.nonceOf(row.address, "latest"))];
  await updateLeg(
    d,
    row,
    leg,
    sql`gas_limit = ${SWEEP_7702_GAS.toString()}, held_wei = 0, topup_wei = 0, gas_cost_wei = 0, hot_wallet_short_at = NULL`,
  );
  await d.onStep?.("sweep_stored", row.id);
  const { transaction } = await submit(d.ctx, d.chain.id, {
    purpose: "sweep",
    ref: refOf(row, leg),
    to: row.address,
    data: sweepCalldata(leg.token),
    gasLimit: SWEEP_7702_GAS,
    signer: d.hot,
    ...(authorizations ? { authorizations } : {}),
  });
  await d.onStep?.("sweep_submitted", row.id);
  await updateLeg(d, row, leg, sql`state = 'sweep_sent', sweep_tx_hash = ${transaction.hash}`);
  await d.onStep?.("sweep_sent", row.id);
  return "go";
}

/**
 * Once the sweep is final: its Transfer to the cold wallet checked, its costs recorded. Before that,
 * a deposit address's sweep that the base fee outran is replaced (evm-sweep-bump.ts).
 */
async function awaitSweep(d: EvmSweepDeps, row: SettlementRow, leg: Leg): Promise<LegNext> {
  const ref = refOf(row, leg);
  const tx = await outboxTransaction(d.ctx, d.chain.id, "sweep", ref);
  if (!tx) throw new Error(`the sweep ${ref} is not in the outbox`);
  if (tx.state === "dropped") return replan(d, row, leg, "the sweep's nonce was used by another transaction");
  if (tx.state !== "final") {
    // The hot wallet's own sweeps (7702 mode) are replaced by the outbox, which holds its key.
    if (tx.sender === row.address && (tx.state === "signed" || tx.state === "broadcast"))
      return bumpStuckSweep(d, row, leg, tx);
    return { waitMs: EVM_SWEEP_WAIT_MS };
  }
  const [receipt] = await queryRows<{ success: boolean; cost: string }>(
    d.ctx.db,
    sql`SELECT success, (gas_used * effective_gas_price)::text AS cost FROM evm_transactions WHERE id = ${tx.id}::bigint`,
  );
  const moved = receipt?.success
    ? ((await d.chain.finalTransfers(tx.hash)) ?? []).some(
        (t) => t.from === row.address && t.to === d.cold && t.units === leg.units,
      )
    : false;
  if (!moved) {
    // Whatever the failed sweep burnt is gone: the leg is planned again, the gas topped up again.
    await replan(d, row, leg, `sweep ${tx.hash} moved no ${leg.currency} to the cold wallet`);
    throw new SweepError(`sweep ${tx.hash} moved no ${leg.currency} to the cold wallet`);
  }
  // Every top-up of this attempt landed on its own nonce (the first, and one per replacement).
  const refs = await topupRefs(d, row, leg);
  const [gas] = await queryRows<{ cost: string | null }>(
    d.ctx.db,
    sql`SELECT sum(gas_used * effective_gas_price)::text AS cost FROM evm_transactions
        WHERE chain = ${d.chain.id} AND purpose = 'sweep_gas' AND ref IN (${sql.join(
          refs.map((r) => sql`${r}`),
          sql`, `,
        )}) AND state IN ('included', 'final')`,
  );
  // What the address really holds once the sweep landed, in either mode: a 7702 sweep spends none
  // of it, so dust an earlier top-up sweep left is still counted.
  const dust = await d.nonces.nativeBalance(row.address, tx.blockNumber ?? undefined);
  await updateLeg(
    d,
    row,
    leg,
    sql`state = 'swept', gas_cost_wei = ${gas?.cost ?? "0"}::numeric, sweep_gas_cost_wei = ${receipt?.cost ?? "0"}::numeric,
      dust_wei = ${dust.toString()}::numeric, sweep_tx_hash = ${tx.hash},
      swept_at = ${d.ctx.clock.now().toISOString()}::timestamptz`,
  );
  return "go";
}

/** The leg starts over under the next attempt: new figures, a new top-up, a new sweep. */
async function replan(d: EvmSweepDeps, row: SettlementRow, leg: Leg, why: string): Promise<LegNext> {
  d.ctx.log.warn({ currency: leg.currency, attempt: leg.attempt, reason: why }, "sweep leg planned again");
  await updateLeg(
    d,
    row,
    leg,
    sql`state = 'planned', attempt = attempt + 1, gas_estimate = NULL, gas_limit = NULL, max_fee_per_gas = NULL,
      max_priority_fee_per_gas = NULL, held_wei = NULL, topup_wei = NULL, sweep_tx_hash = NULL`,
  );
  return "go";
}

/**
 * Ends the round: completed (`sweep_completed` on an order), or another round when a token worth
 * a sweep is on the address again (a payment after the sweep was planned).
 */
async function finish(d: EvmSweepDeps, row: SettlementRow, step: "swept" | "below_minimum") {
  const { ctx } = d;
  const now = ctx.clock.now().toISOString();
  const legs = step === "swept" ? await legsOf(ctx, row) : [];
  const micro = legs.reduce((sum, l) => sum + unitsToMicro(l.units, l.decimals).micro, 0n);
  const again =
    step === "swept" &&
    (isStaticRow(row) ? await staticDue(d, row) : (await sweepableBalances(d, row.address)).length > 0);
  const next = again
    ? sql`status = 'waiting', step = NULL, mode = NULL, round = round + 1, queued_at = ${now}::timestamptz,
        next_attempt_at = ${now}::timestamptz`
    : sql`status = 'completed', step = ${step}, next_attempt_at = NULL`;
  await ctx.db.transaction(async (tx) => {
    await updateLeased(
      d,
      tx,
      row,
      sql`${next}, amount = ${micro.toString()}::numeric, swept_at = ${step === "swept" ? now : null}::timestamptz,
        last_error = NULL, lease_owner = NULL, lease_expires_at = NULL`,
    );
    if (step === "swept" && row.order_id !== null) {
      const hashes = await queryRows<{ sweep_tx_hash: string }>(
        tx,
        sql`SELECT sweep_tx_hash FROM evm_sweep_legs WHERE settlement_id = ${row.id}::uuid AND round = ${row.round}
            ORDER BY currency`,
      );
      await appendOrderEvent(ctx, tx, row.order_id, "sweep_completed", {
        chain: d.chain.id,
        amount: formatAmount(micro),
        sweep_tx_hashes: hashes.map((h) => h.sweep_tx_hash),
        cold_wallet_address: ctx.chains.get(d.chain.id)?.address.display(d.cold) ?? d.cold,
      });
    }
  });
  ctx.metrics.sweeps.inc({ result: "completed" });
  ctx.log.info({ orderId: row.order_id, step, again, chain: d.chain.id }, "sweep completed");
  return "completed" as const;
}
