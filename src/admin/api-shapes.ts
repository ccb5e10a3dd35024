/**
 * Reply shapes of the admin API (SPEC.md 2), one definition for the modules that build them. Type
 * declarations only. The dashboard reads the same replies through the generated OpenAPI types
 * (@stablegate/sdk/api-types), and the contract tests (test/contract) check every reply against
 * the OpenAPI document.
 */
import type { ChainId, Currency } from "../chains/chain-types.js";
import type { OrderStatus } from "../orders/order-statuses.js";

/** SPEC.md 2.2. */
import type { EvmWalletView } from "../wallet/read-evm-wallets.js";

export interface AdminOrderSummary {
  id: string;
  external_id: string;
  merchant_id: string;
  merchant_name: string;
  address: string;
  amount_expected: string;
  amount_received: string;
  /** The chain the order is paid on. */
  chain: ChainId;
  currency: Currency;
  status: OrderStatus;
  tx_hash: string | null;
  created_at: string;
  expires_at: string;
}

/** SPEC.md 2.3: a webhook_failed or sweep_failed event with its order. */
export interface Incident {
  id: string;
  created_at: string;
  event_type: string;
  payload: Record<string, unknown>;
  order_id: string;
  order_status: OrderStatus;
  external_id: string;
  merchant_name: string;
}

/** A transfer to one of our addresses that no order held (DESIGN.md 4 and 13). */
export interface StrayTransferView {
  id: string;
  tx_hash: string;
  log_index: number;
  /** our address it reached */
  address: string;
  from_address: string;
  /** 6 decimals: what the transfer credits (or refunds) in micro-units */
  amount: string;
  /** the chain it was seen on */
  chain: string;
  /** what an 18-decimal token carried below one micro-unit, in the token's decimals; never credited */
  remainder: string;
  block_number: number;
  block_timestamp: string;
  /** seen: waiting for confirmations; confirmed: final */
  status: "seen" | "confirmed";
  confirmations: number;
  /** the order the address last belonged to; null when it was never handed out */
  previous_order_id: string | null;
  /** null while unresolved */
  resolution: "attached" | "dismissed" | "refunded" | null;
  /** the order it was attached to */
  order_id: string | null;
  resolution_reason: string | null;
  resolved_by: { kind: string; id?: string; label: string } | null;
  resolved_at: string | null;
  /** the address's sweep as it concerns this transfer */
  sweep: {
    /** unconfirmed, not_queued (sweeping off), waiting, active, failed, swept, below_minimum (dust left), not_swept */
    status: string;
    sweep_tx_hash: string | null;
    swept_at: string | null;
  };
  explorer_url: string | null;
  created_at: string;
  confirmed_at: string | null;
}

/** SPEC.md 2.6. */
export interface AddressPoolCounts {
  total: number;
  free: number;
  /** total - free: bound to an order, including addresses still in quarantine. */
  allocated: number;
}

/** One chain family's pool (tron, evm): its own indexes and counters (migration 0022). */
export interface FamilyPoolCounts extends AddressPoolCounts {
  family: string;
}

/** The hot wallet's Stake 2.0 energy (delegate mode); energy in units, TRX in 6 decimals. */
export interface HotWalletStake {
  staked_trx: string;
  energy_limit: number;
  energy_available: number;
  energy_in_use: number;
  delegations_open: number;
  /** Present when the node could not be asked; the figures are then the last known ones. */
  stake_error?: string;
}

export interface SweepCostWindow {
  count: number;
  total_trx: string;
  average_trx: string;
}

/**
 * An EVM chain's sweeps over a window (as TRON's SweepCostWindow): token legs swept, their gas in
 * wei and with 18 decimals, and the average per leg (rounded down to the wei).
 */
export interface EvmSweepCostWindow {
  count: number;
  gas_cost_wei: string;
  gas_cost: string;
  sweep_gas_cost_wei: string;
  sweep_gas_cost: string;
  total_wei: string;
  total: string;
  average_wei: string;
  average: string;
}

/**
 * What an EVM chain's sweeps cost (evm_sweep_legs, docs/evm-sweeps.md) in the chain's native coin:
 * wei as integer strings and the same exactly with 18 decimals. The flat figures are all time;
 * `windows` has the last 7 UTC days and all time, as TRON's modes have.
 */
export interface EvmSweepCost {
  chain: string;
  native_symbol: string;
  /** token legs swept */
  sweeps: number;
  /** the top-ups' own gas (top-up mode) */
  gas_cost_wei: string;
  gas_cost: string;
  /** the sweep transactions' gas (paid by the address in top-up mode, the hot wallet in 7702 mode) */
  sweep_gas_cost_wei: string;
  sweep_gas_cost: string;
  /** gas_cost + sweep_gas_cost */
  total_wei: string;
  total: string;
  /** the native coin left on swept addresses: each address's dust after its latest sweep */
  dust_wei: string;
  dust: string;
  /** the last 7 UTC days (today included) and all time, by the legs' swept_at */
  windows: { week: EvmSweepCostWindow; total: EvmSweepCostWindow };
}

/** Sweep costs by mode: the last 7 UTC days and all time; and each EVM chain's. */
export type SweepCostSummary = Record<
  "burn" | "delegate",
  { week: SweepCostWindow; total: SweepCostWindow }
> & {
  evm: EvmSweepCost[];
};

/** SPEC.md 2.7, plus `stake` and `sweep_costs` (added fields, DESIGN.md 7b). */
export interface WalletStatus {
  hot_wallet: {
    address: string;
    trx_balance: string;
    /** Its USDT, read from the node; null when the node could not be asked (balance_error says so). */
    usdt_balance: string | null;
    is_low_balance: boolean;
    /** Present when the node could not be asked; trx_balance is then the last known value. */
    balance_error?: string;
  } | null;
  /** usdt_balance: read from the node; null with balance_error when the node could not be asked. */
  cold_wallet: { address: string; usdt_balance: string | null; balance_error?: string } | null;
  address_pool: AddressPoolCounts;
  /** Each chain family's pool (tron, evm); address_pool is their sum. */
  address_pools: FamilyPoolCounts[];
  /** Each enabled EVM chain's hot and cold wallet balances (src/wallet/read-evm-wallets.ts). */
  evm_wallets: EvmWalletView[];
  sweep_queue: { waiting: number; active: number; failed: number };
  /** null without a hot wallet, and in burn mode */
  stake: HotWalletStake | null;
  sweep_costs: SweepCostSummary;
  system: {
    chain_network: string;
    usdt_contract: string | null;
    node_api_url: string | null;
    chain_explorer_base_url: string | null;
    tx_explorer_base_url: string | null;
    address_explorer_base_url: string | null;
    sweep_enabled: boolean;
    sweep_mode: string;
    hot_wallet_alert_trx: number;
  };
}

/** GET /api/v1/admin/chain: one node of TRON_NODE_URL as the scanner sees it. */
export interface AdminChainNode {
  /** "node-1", "node-2", ... in TRON_NODE_URL's order (node-1 is preferred). */
  node: string;
  /** scheme://host:port only: credentials, paths and queries (provider keys) are never shown. */
  url: string;
  role: "preferred" | "fallback";
  /** healthy, or set aside: failing (errors in a row) or lagging (head behind the best node). */
  state: "healthy" | "failing" | "lagging";
  /** Calls go to this node now. */
  active: boolean;
  head: number | null;
  /** Blocks behind the best node at the last comparison. */
  lag: number | null;
  calls: number;
  errors: number;
  /** When a node set aside is tried again. */
  retry_at: string | null;
}

/** GET /api/v1/admin/chain: the scanner's lag and the node pool. */
export interface AdminChainStatus {
  network: string;
  /** "scanner": published by the worker that scans (within the last 15 s); "this process": its own view. */
  source: "scanner" | "this process";
  head: number | null;
  scanned: number | null;
  /** head - scanned; null while either is unknown. */
  scanner_lag_blocks: number | null;
  /** ALERT_SCANNER_LAG_BLOCKS. */
  scanner_lag_alert_blocks: number;
  nodes: AdminChainNode[];
  /** Every enabled chain, the primary first. */
  chains: AdminChainEntry[];
}

/** One enabled chain on the dashboard. */
export interface AdminChainEntry {
  chain: ChainId;
  /** "Ethereum", "TRON". */
  chain_name: string;
  network: string;
  currencies: Currency[];
  source: "scanner" | "this process";
  head: number | null;
  /** The newest final block; null while unknown. */
  finalized: number | null;
  /** head - finalized. */
  finality_lag_blocks: number | null;
  /** null where the chain has no scanned position. */
  scanned: number | null;
  scanner_lag_blocks: number | null;
  nodes: AdminChainNode[];
}
