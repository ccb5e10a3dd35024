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

export interface AccountJson {
  address: string;
  balance?: number;
  create_time?: number;
  latest_opration_time?: number;
  frozenV2?: { type?: string; amount?: number }[];
  account_resource?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface AccountResourceJson {
  freeNetUsed?: number;
  freeNetLimit?: number;
  NetUsed?: number;
  NetLimit?: number;
  EnergyUsed?: number;
  EnergyLimit?: number;
  TotalNetLimit?: number;
  TotalNetWeight?: number;
  TotalEnergyLimit?: number;
  TotalEnergyWeight?: number;
  [key: string]: unknown;
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
