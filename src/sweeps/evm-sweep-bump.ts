/**
 * A top-up sweep that the base fee outran (docs/evm-sweeps.md "A sweep the fees outran"). The
 * deposit address holds exactly its sweep's gas at the caps it was signed with, so the outbox, which
 * holds no deposit key, cannot replace it. When the sweep has waited past the outbox's own rule
 * (waitedToReplace) and sits below the market, the sweeper:
 *
 *   1. stores a bump (evm_sweep_bumps, migration 0035): the new caps (the outbox's replacement bump
 *      over the old ones, and at least the sweep's margin rule at today's base fee), what the
 *      address holds, and the top-up = gas limit x new max fee - held;
 *   2. has the hot wallet send that top-up (purpose `sweep_gas`, ref `<leg ref>:<bump>`);
 *   3. once it is included, has the deposit key sign the SAME nonce at the new caps, stored in the
 *      outbox (the old version retired) in the transaction that marks the bump `replaced`, and
 *      only then sends it.
 *
 * One nonce, so only one generation can land; the outbox settles whichever did. Every step's input
 * is stored before the step, and each step is idempotent, so a worker killed anywhere resumes.
 */
import { sql } from "drizzle-orm";
import { queryRows } from "../db/query-rows.js";
import { belowMarket, replacementCaps } from "../outbox/fees.js";
import type { OutboxRow } from "../outbox/outbox-store.js";
import { waitedToReplace } from "../outbox/run-outbox.js";
import { outboxTransaction, sendRow, submit } from "../outbox/submit.js";
import { supersede } from "../outbox/supersede.js";
import {
  depositSigner,
  EVM_SWEEP_WAIT_MS,
  type EvmSweepDeps,
  HOT_WALLET_RETRY_MS,
  hotWalletCanPay,
  type Leg,
  type LegNext,
  refOf,
  sweepCaps,
  TOPUP_GAS,
  updateLeg,
} from "./evm-sweep-legs.js";
import type { SettlementRow } from "./sweep-types.js";

interface Bump {
  bump: number;
  replacesHash: string;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  topupWei: bigint;
  state: "planned" | "gas_sent" | "replaced" | "abandoned";
}

const WAIT: LegNext = { waitMs: EVM_SWEEP_WAIT_MS };

const keyOf = (row: SettlementRow, leg: Leg) =>
  sql`settlement_id = ${row.id}::uuid AND round = ${row.round} AND currency = ${leg.currency} AND attempt = ${leg.attempt}`;

async function bumpsOf(d: EvmSweepDeps, row: SettlementRow, leg: Leg): Promise<Bump[]> {
  const rows = await queryRows<Record<string, string | number>>(
    d.ctx.db,
    sql`SELECT bump, replaces_hash, max_fee_per_gas::text AS max_fee, max_priority_fee_per_gas::text AS tip,
          topup_wei::text AS topup, state
        FROM evm_sweep_bumps WHERE ${keyOf(row, leg)} ORDER BY bump`,
  );
  return rows.map((r) => ({
    bump: Number(r.bump),
    replacesHash: String(r.replaces_hash),
    maxFeePerGas: BigInt(String(r.max_fee)),
    maxPriorityFeePerGas: BigInt(String(r.tip)),
    topupWei: BigInt(String(r.topup)),
    state: r.state as Bump["state"],
  }));
}

/** The outbox refs of every top-up of a leg's attempt: the first, then one per bump. */
export async function topupRefs(d: EvmSweepDeps, row: SettlementRow, leg: Leg): Promise<string[]> {
  const ref = refOf(row, leg);
  return [ref, ...(await bumpsOf(d, row, leg)).map((b) => `${ref}:${b.bump}`)];
}

async function setBumpState(d: EvmSweepDeps, row: SettlementRow, leg: Leg, bump: Bump, state: Bump["state"]) {
  await d.ctx.db.execute(sql`UPDATE evm_sweep_bumps SET state = ${state},
      updated_at = ${d.ctx.clock.now().toISOString()}::timestamptz
    WHERE ${keyOf(row, leg)} AND bump = ${bump.bump}`);
}

/** The deposit address's nonce is used on the chain: a version of the sweep landed. */
async function nonceUsed(d: EvmSweepDeps, row: SettlementRow, live: OutboxRow): Promise<boolean> {
  return (await d.nonces.nonceOf(row.address, "latest")) > live.nonce;
}

/** Advances the open bump of the leg's sweep, or starts one when the sweep is stuck below the market. */
export async function bumpStuckSweep(
  d: EvmSweepDeps,
  row: SettlementRow,
  leg: Leg,
  live: OutboxRow,
): Promise<LegNext> {
  const bumps = await bumpsOf(d, row, leg);
  const open = bumps.find((b) => b.state === "planned" || b.state === "gas_sent");
  if (open) return carryOut(d, row, leg, live, open);

  const [market, head] = await Promise.all([d.nonces.fees(), d.chain.headNumber()]);
  // Bytes the node refused (already below the base fee when sent) wait from when they were stored.
  const since = {
    firstBroadcastAt: live.firstBroadcastAt ?? live.createdAt,
    broadcastHead: live.broadcastHead,
  };
  const now = d.ctx.clock.now();
  if (!waitedToReplace(since, now.getTime(), head, d.replace) || !belowMarket(live, market)) return WAIT;
  if (await nonceUsed(d, row, live)) return WAIT;

  const caps = replacementCaps(live, market, sweepCaps(market));
  const held = await d.nonces.nativeBalance(row.address);
  const needed = live.gasLimit * caps.maxFeePerGas + live.value;
  const topup = needed > held ? needed - held : 0n;
  if (!(await hotWalletCanPay(d, row, leg, market, topup))) return { waitMs: HOT_WALLET_RETRY_MS };
  const next: Bump = {
    bump: (bumps.at(-1)?.bump ?? 0) + 1,
    replacesHash: live.hash,
    ...caps,
    topupWei: topup,
    state: "planned",
  };
  const at = now.toISOString();
  await d.ctx.db.transaction(async (tx) => {
    await tx.execute(sql`INSERT INTO evm_sweep_bumps (settlement_id, round, currency, attempt, bump, replaces_hash,
        max_fee_per_gas, max_priority_fee_per_gas, held_wei, topup_wei, state, created_at, updated_at)
      VALUES (${row.id}::uuid, ${row.round}, ${leg.currency}, ${leg.attempt}, ${next.bump}, ${live.hash},
        ${caps.maxFeePerGas.toString()}::numeric, ${caps.maxPriorityFeePerGas.toString()}::numeric,
        ${held.toString()}::numeric, ${topup.toString()}::numeric, 'planned', ${at}::timestamptz, ${at}::timestamptz)
      ON CONFLICT DO NOTHING`);
    await tx.execute(sql`UPDATE evm_sweep_legs SET hot_wallet_short_at = NULL, updated_at = ${at}::timestamptz
      WHERE settlement_id = ${row.id}::uuid AND round = ${row.round} AND currency = ${leg.currency}`);
  });
  d.ctx.log.warn(
    {
      chain: d.chain.id,
      hash: live.hash,
      nonce: live.nonce,
      bump: next.bump,
      baseFee: market.baseFee.toString(),
      maxFeePerGas: caps.maxFeePerGas.toString(),
      topupWei: topup.toString(),
    },
    "sweep below the market: topping up for a replacement",
  );
  await d.onStep?.("bump_stored", row.id);
  return carryOut(d, row, leg, live, next);
}

async function carryOut(
  d: EvmSweepDeps,
  row: SettlementRow,
  leg: Leg,
  live: OutboxRow,
  bump: Bump,
): Promise<LegNext> {
  if (bump.replacesHash !== live.hash) {
    // The version it was planned against is no longer the live one: plan afresh if still stuck.
    await setBumpState(d, row, leg, bump, "abandoned");
    return "go";
  }
  const ref = `${refOf(row, leg)}:${bump.bump}`;
  if (bump.topupWei > 0n) {
    if (bump.state === "planned") {
      await submit(d.ctx, d.chain.id, {
        purpose: "sweep_gas",
        ref,
        to: row.address,
        value: bump.topupWei,
        gasLimit: TOPUP_GAS,
        signer: d.hot,
      });
      await setBumpState(d, row, leg, bump, "gas_sent");
      await d.onStep?.("bump_gas_sent", row.id);
    }
    const gas = await outboxTransaction(d.ctx, d.chain.id, "sweep_gas", ref);
    if (!gas) throw new Error(`the top-up ${ref} is not in the outbox`);
    if (gas.state === "dropped") {
      await setBumpState(d, row, leg, bump, "abandoned");
      return "go";
    }
    if (gas.state !== "included" && gas.state !== "final") return WAIT;
  }
  if (await nonceUsed(d, row, live)) return WAIT;
  const caps = { maxFeePerGas: bump.maxFeePerGas, maxPriorityFeePerGas: bump.maxPriorityFeePerGas };
  const note = `replaced at max fee ${caps.maxFeePerGas}, tip ${caps.maxPriorityFeePerGas} after a top-up`;
  const version = await supersede(
    d.ctx,
    depositSigner(d, row),
    live,
    "replaced",
    note,
    {
      chain: live.chain,
      sender: live.sender,
      nonce: live.nonce,
      purpose: live.purpose,
      ref: live.ref,
      generation: live.generation + 1,
      to: live.to,
      value: live.value,
      data: live.data,
      gasLimit: live.gasLimit,
      authorizations: live.authorizations,
      ...caps,
    },
    async (tx, stored) => {
      await tx.execute(sql`UPDATE evm_sweep_bumps SET state = 'replaced', sweep_tx_hash = ${stored.hash},
          updated_at = ${d.ctx.clock.now().toISOString()}::timestamptz
        WHERE ${keyOf(row, leg)} AND bump = ${bump.bump}`);
    },
  );
  // Another process retired the version first: the next look finds where it stands.
  if (!version) return WAIT;
  await d.onStep?.("bump_sweep_stored", row.id);
  await sendRow(d.ctx, d.nonces, version);
  await updateLeg(d, row, leg, sql`sweep_tx_hash = ${version.hash}`);
  d.ctx.log.info(
    { chain: d.chain.id, nonce: live.nonce, old: live.hash, hash: version.hash, bump: bump.bump },
    "sweep replaced at higher fee caps",
  );
  return WAIT;
}
