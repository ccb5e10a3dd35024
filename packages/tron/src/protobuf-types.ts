// The java-tron JSON of Transaction.raw (protocol/core/Tron.proto) as TronWeb and java-tron print it, and
// the contract type and resource numbering shared by the encoder (protobuf.ts) and decoder.

export type ResourceCode = "BANDWIDTH" | "ENERGY" | "TRON_POWER";

export interface TransferContractJson {
  owner_address: string;
  to_address: string;
  amount: number;
}
export interface TriggerSmartContractJson {
  owner_address: string;
  contract_address: string;
  call_value?: number;
  data?: string;
  call_token_value?: number;
  token_id?: number;
}
export interface FreezeBalanceV2ContractJson {
  owner_address: string;
  frozen_balance: number;
  resource?: ResourceCode;
}
export interface UnfreezeBalanceV2ContractJson {
  owner_address: string;
  unfreeze_balance: number;
  resource?: ResourceCode;
}
export interface WithdrawExpireUnfreezeContractJson {
  owner_address: string;
}
export interface DelegateResourceContractJson {
  owner_address: string;
  resource?: ResourceCode;
  balance: number;
  receiver_address: string;
  lock?: boolean;
  lock_period?: number;
}
export interface UnDelegateResourceContractJson {
  owner_address: string;
  resource?: ResourceCode;
  balance: number;
  receiver_address: string;
}

interface ContractValues {
  TransferContract: TransferContractJson;
  TriggerSmartContract: TriggerSmartContractJson;
  FreezeBalanceV2Contract: FreezeBalanceV2ContractJson;
  UnfreezeBalanceV2Contract: UnfreezeBalanceV2ContractJson;
  WithdrawExpireUnfreezeContract: WithdrawExpireUnfreezeContractJson;
  DelegateResourceContract: DelegateResourceContractJson;
  UnDelegateResourceContract: UnDelegateResourceContractJson;
}
export type ContractTypeName = keyof ContractValues;

export type ContractJson = {
  [K in ContractTypeName]: {
    type: K;
    parameter: { type_url: string; value: ContractValues[K] };
    provider?: string;
    ContractName?: string;
    Permission_id?: number;
  };
}[ContractTypeName];

export interface RawDataJson {
  ref_block_bytes: string;
  ref_block_num?: number;
  ref_block_hash: string;
  expiration: number;
  data?: string;
  contract: ContractJson[];
  scripts?: string;
  timestamp?: number;
  fee_limit?: number;
}

export interface TransactionJson {
  visible?: boolean;
  txID: string;
  raw_data: RawDataJson;
  raw_data_hex: string;
  signature?: string[];
}

export const CONTRACT_TYPE_IDS: Record<ContractTypeName, number> = {
  TransferContract: 1,
  TriggerSmartContract: 31,
  FreezeBalanceV2Contract: 54,
  UnfreezeBalanceV2Contract: 55,
  WithdrawExpireUnfreezeContract: 56,
  DelegateResourceContract: 57,
  UnDelegateResourceContract: 58,
};
export const CONTRACT_TYPE_NAMES = new Map<number, ContractTypeName>(
  Object.entries(CONTRACT_TYPE_IDS).map(([k, v]) => [v, k as ContractTypeName]),
);
export const RESOURCE_CODES: ResourceCode[] = ["BANDWIDTH", "ENERGY", "TRON_POWER"];
export const TYPE_URL_PREFIX = "type.googleapis.com/protocol.";

/** int64 varints are 64-bit two's complement. */
export const MASK64 = (1n << 64n) - 1n;
