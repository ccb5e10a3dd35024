/**
 * What the EVM sweeper's steps share (src/sweeps/evm-sweeps.ts, evm-sweep-bump.ts): its wallets, a
 * leg's stored figures (evm_sweep_legs, migration 0031), the top-up's margin rule, and the deposit
 * address's signer.
 */
import { sql } from "drizzle-orm";
import type { Chain, NonceSending, TransactionSigner } from "../chains/chain.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { FeeCaps, MarketFees } from "../outbox/fees.js";
import type { ReplaceRule } from "../outbox/run-outbox.js";
import { SweepError, type SettlementRow } from "./sweep-types.js";

/** eth_estimateGas of the deposit's transfer + 10 % (docs/evm-sweeps.md, "The margin rule"). */
export const GAS_MARGIN_PERCENT = 10n;
/** The base fee may rise by 1/8 a block: the caps cover two blocks of rises, plus the tip. */
export const BASE_FEE_RISE_BLOCKS = 2;
/** What the outbox's top-up (a plain ETH transfer to an account without code) costs in gas. */
export const TOPUP_GAS = 21_000n;
/** How soon to look again at a transaction on its way, and at a hot wallet that was short. */
export const EVM_SWEEP_WAIT_MS = 2_000;
export const HOT_WALLET_RETRY_MS = 30_000;

/**
 * Where a sweep stands in this worker: the crash tests die at each. `sweep_submitted`: the sweep is
 * in the outbox (and broadcast), the leg not yet moved to `sweep_sent`.
 */
export type EvmSweepStep =
  | "gas_stored"
  | "gas_sent"
  | "sweep_stored"
  | "sweep_submitted"
  | "sweep_sent"
  | "bump_stored"
  | "bump_gas_sent"
  | "bump_sweep_stored";

export interface EvmSweepDeps {
  ctx: Context;
  chain: Chain;
  nonces: NonceSending;
  hot: TransactionSigner;
  cold: string;
  mnemonic: string;
  /** The 7702 sweeper on this chain (stored form), where configured. */
  sweeper: string | undefined;
  owner: string;
  /** When a deposit address's sweep below the market is replaced (the outbox's rule by default). */
  replace?: ReplaceRule | undefined;
  onStep?: ((step: EvmSweepStep, settlementId: string) => void | Promise<void>) | undefined;
}

export interface Leg {
  currency: string;
  token: string;
  units: bigint;
  decimals: number;
  state: "planned" | "gas_sent" | "sweep_sent" | "swept";
  attempt: number;
  gasLimit: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
  topupWei: bigint | null;
}

/** Where a leg goes next: on at once, or a look again later. */
export type LegNext = "go" | { waitMs: number };

type Raw = Record<string, string | number | null>;
const big = (v: unknown) => (v === null || v === undefined ? null : BigInt(String(v)));

export async function legsOf(ctx: Context, row: SettlementRow): Promise<Leg[]> {
  const rows = await queryRows<Raw>(
    ctx.db,
    sql`SELECT currency, token, units::text AS units, decimals, state, attempt, gas_limit::text AS gas_limit,
          max_fee_per_gas::text AS max_fee, max_priority_fee_per_gas::text AS tip, topup_wei::text AS topup
        FROM evm_sweep_legs WHERE settlement_id = ${row.id}::uuid AND round = ${row.round}
        ORDER BY currency`,
  );
  return rows.map((r) => ({
    currency: String(r.currency),
    token: String(r.token),
    units: BigInt(String(r.units)),
    decimals: Number(r.decimals),
    state: r.state as Leg["state"],
    attempt: Number(r.attempt),
    gasLimit: big(r.gas_limit),
    maxFeePerGas: big(r.max_fee),
    maxPriorityFeePerGas: big(r.tip),
    topupWei: big(r.topup),
  }));
}

/** The outbox ref of a leg's attempt: its top-up (`sweep_gas`) and its sweep (`sweep`). */
export const refOf = (row: SettlementRow, leg: Leg) =>
  `${row.id}:${row.round}:${leg.currency}:${leg.attempt}`;

export async function updateLeg(d: EvmSweepDeps, row: SettlementRow, leg: Leg, set: ReturnType<typeof sql>) {
  await d.ctx.db
    .execute(sql`UPDATE evm_sweep_legs SET ${set}, updated_at = ${d.ctx.clock.now().toISOString()}::timestamptz
    WHERE settlement_id = ${row.id}::uuid AND round = ${row.round} AND currency = ${leg.currency}`);
}

/**
 * The caps a deposit address's sweep is signed with at `market`: the newest base fee raised by two
 * blocks of the most the protocol allows (1/8 each, rounded up), plus the suggested tip.
 */
export function sweepCaps(market: MarketFees): FeeCaps {
  let baseFee = market.baseFee;
  for (let i = 0; i < BASE_FEE_RISE_BLOCKS; i++) baseFee += (baseFee + 7n) / 8n;
  return { maxFeePerGas: baseFee + market.tip, maxPriorityFeePerGas: market.tip };
}

/**
 * Whether the hot wallet can send `topup` and pay its own gas at the outbox's caps; when it cannot,
 * the leg is marked short (hot_wallet_low:<chain> fires) and the caller waits.
 */
export async function hotWalletCanPay(
  d: EvmSweepDeps,
  row: SettlementRow,
  leg: Leg,
  market: MarketFees,
  topup: bigint,
): Promise<boolean> {
  if (topup === 0n) return true;
  const cost = topup + TOPUP_GAS * (market.baseFee * 2n + market.tip);
  if ((await d.nonces.nativeBalance(d.hot.address)) >= cost) return true;
  await updateLeg(
    d,
    row,
    leg,
    sql`hot_wallet_short_at = coalesce(hot_wallet_short_at, ${d.ctx.clock.now().toISOString()}::timestamptz)`,
  );
  d.ctx.log.warn(
    { chain: d.chain.id, hotWallet: d.hot.address, needWei: cost.toString() },
    "sweep waits: the hot wallet cannot pay the gas top-up",
  );
  return false;
}

export const isStaticRow = (row: SettlementRow) =>
  row.static_index !== null && row.static_index !== undefined;

/** The deposit address's key: on branch 0 for an order's address, 1 for a static one. */
export function depositSigner(d: EvmSweepDeps, row: SettlementRow): TransactionSigner {
  const isStatic = isStaticRow(row);
  const index = isStatic ? row.static_index : row.derivation_index;
  if (index === null || index === undefined)
    throw new SweepError("the deposit address is not one of our derived addresses");
  const signer = d.nonces.depositSigner(d.mnemonic, isStatic ? 1 : 0, index);
  if (signer.address !== row.address)
    throw new SweepError("WALLET_MNEMONIC does not derive this deposit address");
  return signer;
}
