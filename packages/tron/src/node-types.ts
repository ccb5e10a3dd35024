import type { TransactionJson } from "./protobuf.js";

// The java-tron HTTP API's JSON, as far as the service reads it. java-tron omits default values
// (0, "", false, []), so most fields are optional even when always meaningful. Addresses are hex
// ('41…') because the client asks with visible=false; log addresses and topics are 20-byte/32-byte hex
// without 0x. Integers are JSON numbers: exact up to 2^53, which covers block numbers, fees and balances.

export interface BlockHeaderRawJson {
  /** absent on the genesis block */
  number?: number;
  txTrieRoot?: string;
  witness_address?: string;
  parentHash: string;
  version?: number;
  timestamp?: number;
}

export interface TransactionRet {
  contractRet?: string;
  ret?: string;
  fee?: number;
}

export interface BlockTransactionJson extends TransactionJson {
  ret?: TransactionRet[];
}

export interface BlockJson {
  blockID: string;
  block_header: { raw_data: BlockHeaderRawJson; witness_signature?: string };
  transactions?: BlockTransactionJson[];
}

/** The fields a scanner needs, with defaults filled in. */
export interface BlockHeader {
  number: number;
  blockID: string;
  parentHash: string;
  timestamp: number;
}

export function headerOf(block: BlockJson): BlockHeader {
  const raw = block.block_header.raw_data;
  return {
    number: raw.number ?? 0,
    blockID: block.blockID,
    parentHash: raw.parentHash,
    timestamp: raw.timestamp ?? 0,
  };
}

export interface TransactionLog {
  /** 20-byte hex, no 41 prefix */
  address: string;
  topics?: string[];
  data?: string;
}

export interface TransactionReceipt {
  /** SUCCESS, REVERT, OUT_OF_ENERGY, …; absent for non-contract transactions */
  result?: string;
  energy_usage?: number;
  energy_fee?: number;
  origin_energy_usage?: number;
  energy_usage_total?: number;
  energy_penalty_total?: number;
  net_usage?: number;
  net_fee?: number;
}

export interface TransactionInfo {
  id: string;
  fee?: number;
  blockNumber: number;
  blockTimeStamp: number;
  contractResult?: string[];
  contract_address?: string;
  receipt: TransactionReceipt;
  log?: TransactionLog[];
  /** "FAILED" when the transaction failed; absent on success */
  result?: string;
  /** hex of a UTF-8 message */
  resMessage?: string;
  internal_transactions?: unknown[];
}

/** Account.AccountResource: the energy side of an account (Stake 1.0 fields left out). */
export interface AccountResourceFieldsJson {
  /** energy used, as of latest_consume_time_for_energy (recovers linearly over the window) */
  energy_usage?: number;
  latest_consume_time_for_energy?: number;
  energy_window_size?: number;
  energy_window_optimized?: boolean;
  /** sun of this account's stake whose energy it delegates to others */
  delegated_frozenV2_balance_for_energy?: number;
  /** sun of others' stake whose energy was delegated to this account */
  acquired_delegated_frozenV2_balance_for_energy?: number;
  [key: string]: unknown;
}

/** Account.FreezeV2: `type` absent means BANDWIDTH (an enum default), `amount` absent means 0. */
export interface FreezeV2Json {
  type?: "BANDWIDTH" | "ENERGY" | "TRON_POWER";
  amount?: number;
}

/** Account.UnFreezeV2: stake being unfrozen; withdrawable from unfreeze_expire_time (Unix ms). */
export interface UnFreezeV2Json {
  type?: "BANDWIDTH" | "ENERGY" | "TRON_POWER";
  unfreeze_amount?: number;
  unfreeze_expire_time?: number;
}

export interface AccountJson {
  address: string;
  balance?: number;
  create_time?: number;
  latest_opration_time?: number;
  free_net_usage?: number;
  latest_consume_free_time?: number;
  net_usage?: number;
  latest_consume_time?: number;
  frozenV2?: FreezeV2Json[];
  unfrozenV2?: UnFreezeV2Json[];
  delegated_frozenV2_balance_for_bandwidth?: number;
  acquired_delegated_frozenV2_balance_for_bandwidth?: number;
  account_resource?: AccountResourceFieldsJson;
  [key: string]: unknown;
}

/** wallet/getaccountresource (AccountResourceMessage); zero fields are omitted by java-tron. */
export interface AccountResourceJson {
  freeNetUsed?: number;
  freeNetLimit?: number;
  NetUsed?: number;
  NetLimit?: number;
  TotalNetLimit?: number;
  TotalNetWeight?: number;
  TotalTronPowerWeight?: number;
  tronPowerUsed?: number;
  tronPowerLimit?: number;
  EnergyUsed?: number;
  EnergyLimit?: number;
  TotalEnergyLimit?: number;
  TotalEnergyWeight?: number;
  storageUsed?: number;
  storageLimit?: number;
  [key: string]: unknown;
}

/** One delegation (DelegatedResource): `expire_time_*` is the lock's end in Unix ms, absent if unlocked. */
export interface DelegatedResourceJson {
  from: string;
  to: string;
  frozen_balance_for_bandwidth?: number;
  frozen_balance_for_energy?: number;
  expire_time_for_bandwidth?: number;
  expire_time_for_energy?: number;
}

/** wallet/getdelegatedresourceaccountindexv2, with the empty lists filled in. */
export interface DelegatedResourceAccountIndexJson {
  account?: string;
  /** accounts that delegate to this one */
  fromAccounts: string[];
  /** accounts this one delegates to */
  toAccounts: string[];
  timestamp?: number;
}

export interface SmartContractJson {
  contract_address?: string;
  origin_address?: string;
  bytecode?: string;
  name?: string;
  abi?: unknown;
  [key: string]: unknown;
}

export interface ConstantCallResult {
  result: { result?: boolean; code?: string; message?: string };
  energy_used?: number;
  energy_penalty?: number;
  constant_result?: string[];
  transaction?: BlockTransactionJson;
}

export interface BroadcastResult {
  result: true;
  txid: string;
}
