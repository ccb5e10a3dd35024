/**
 * The vocabulary every sweep mode shares: the claimed settlement row, what a step may change on it,
 * what a step decides, and a mode's plan (its steps by name). The machinery that runs plans lives in
 * run-sweeps.ts (the step engine), settlement-store.ts (lease-guarded writes), sweep-chain.ts
 * (sign-store-broadcast, wait for the solidified chain) and record-sweep-failure.ts (backoff).
 */
import type { SweepMode } from "../config.js";
import type { Context } from "../context.js";
import type { NodeClient } from "@stablegate/tron/node-client";
import type { TransactionJson } from "@stablegate/tron/protobuf";

export interface SettlementRow extends Record<string, unknown> {
  id: string;
  /** null: an address-level settlement (a stray balance, DESIGN.md 4) */
  order_id: string | null;
  address: string;
  /** the chain whose balance is swept (migration 0031) */
  chain?: string;
  step: string | null;
  attempts: number;
  amount: string | null;
  fee_trx: string | null;
  fee_tx_hash: string | null;
  fee_tx_signed: TransactionJson | null;
  sweep_tx_hash: string | null;
  sweep_tx_signed: TransactionJson | null;
  derivation_index: number | null;
  /** the static branch's index (m/44'/195'/0'/1/i) when the address is a static deposit address */
  static_index: number | null;
  /** fixed when a round starts; null until then */
  mode: SweepMode | null;
  round: number;
  /** Unix ms, as text */
  swept_at: string | null;
}

/** Columns a step may set on its settlement. */
export interface Patch {
  step?: string;
  amount?: bigint;
  fee_trx?: bigint;
  fee_tx_hash?: string;
  fee_tx_signed?: TransactionJson;
  sweep_tx_hash?: string;
  sweep_tx_signed?: TransactionJson;
  swept_at?: Date;
  mode?: SweepMode;
}

/** What one step decided: go on at once with `next`, wait for the chain, or finish. */
export type StepResult =
  | { kind: "next"; step: string; patch?: Patch }
  | { kind: "wait"; patch?: Patch; delayMs?: number }
  | { kind: "done"; patch: Patch; event?: Record<string, unknown>; again?: boolean };

/**
 * Where a sweep transaction stands in this worker (the crash tests kill a worker at each):
 * signed (not stored yet), stored (not broadcast yet), broadcast, or waiting for the solidified chain.
 */
export type SweepStep = "signed" | "stored" | "broadcast" | "waiting";

/** What a step needs: the context, the node and the wallets, and this worker's lease name. */
export interface SweepDeps {
  ctx: Context;
  client: NodeClient;
  usdt: string;
  cold: string;
  hotKey: string;
  hotAddress: string;
  mnemonic: string;
  owner: string;
  /** Told each step of each transaction (`kind`: fund, sweep, activate ...); for the crash tests. */
  onStep?: ((step: SweepStep, kind: string, settlementId: string) => void | Promise<void>) | undefined;
}

export type StepHandler = (d: SweepDeps, row: SettlementRow) => Promise<StepResult>;

/** A sweep mode: its first step and every step it can be in, by the name stored in `step`. */
export interface SweepPlan {
  readonly first: string;
  readonly steps: Readonly<Record<string, StepHandler>>;
}

/** A failure of the sweep itself (counts as an attempt); node outages are TronNodeError instead. */
export class SweepError extends Error {}

/** Another worker holds the settlement now: stop touching it. */
export class LeaseLost extends Error {}
