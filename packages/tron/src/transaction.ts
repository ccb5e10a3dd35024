import { toHex } from "./address.js";
import { isHexString, strip0x } from "./bytes.js";
import { rawDataHex, txIdOf, TYPE_URL_PREFIX } from "./protobuf.js";
import type {
  ContractJson,
  RawDataJson,
  ResourceCode,
  TransactionJson,
  TriggerSmartContractJson,
} from "./protobuf.js";

// Transactions are always built here from our own inputs; a node-built transaction is never signed.

/** java-tron's default: a transaction lives 60 s past its reference block (or now). */
export const DEFAULT_EXPIRATION_MS = 60_000;

export interface RefBlock {
  number: bigint | number;
  /** blockID (64 hex): 8 bytes of block number followed by 24 bytes of the block hash. */
  hash: string;
  /** The reference block's timestamp in ms; the default expiration counts from it. */
  timestamp?: number;
}

export interface CommonTxOptions {
  refBlock: RefBlock;
  /** Absolute expiration in Unix ms; default refBlock.timestamp (or nowMs) + 60 s. */
  expirationMs?: number;
  /** raw_data.timestamp in Unix ms; default nowMs. */
  timestampMs?: number;
  /** The clock, for tests; default Date.now(). */
  nowMs?: number;
  feeLimit?: bigint | number;
  /** raw_data.data (a memo), hex. */
  memoHex?: string;
  permissionId?: number;
}

/** TAPOS fields as java-tron fills them: bytes 6..8 of the number, bytes 8..16 of the blockID. */
export function tapos(refBlock: RefBlock): { ref_block_bytes: string; ref_block_hash: string } {
  const n = BigInt(refBlock.number);
  if (n < 0n || n >= 1n << 63n) throw new RangeError("reference block number out of range");
  const hash = strip0x(refBlock.hash).toLowerCase();
  if (hash.length !== 64 || !isHexString(hash))
    throw new Error("reference block hash must be 32 bytes of hex");
  return {
    ref_block_bytes: n.toString(16).padStart(16, "0").slice(12, 16),
    ref_block_hash: hash.slice(16, 32),
  };
}

/** bigint (or integer number) to a JSON number, refusing values JSON numbers cannot hold exactly. */
export function int64ToNumber(v: bigint | number, name: string, min = 0n): number {
  if (typeof v === "number" && !Number.isSafeInteger(v))
    throw new RangeError(`${name} must be a safe integer`);
  const b = BigInt(v);
  if (b < min) throw new RangeError(`${name} must be >= ${min}`);
  if (b > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${name} is too large`);
  return Number(b);
}

export function finalizeTransaction(raw: RawDataJson): TransactionJson {
  const raw_data_hex = rawDataHex(raw);
  return { visible: false, txID: txIdOf(raw_data_hex), raw_data: raw, raw_data_hex };
}

function build(contract: ContractJson, o: CommonTxOptions): TransactionJson {
  const now = o.nowMs ?? Date.now();
  if (o.permissionId) contract.Permission_id = o.permissionId;
  const raw: RawDataJson = {
    contract: [contract],
    ...tapos(o.refBlock),
    expiration: o.expirationMs ?? (o.refBlock.timestamp ?? now) + DEFAULT_EXPIRATION_MS,
  };
  // proto3 drops a zero timestamp, so the JSON leaves it out too and decodes back to itself
  const timestamp = o.timestampMs ?? now;
  if (timestamp) raw.timestamp = timestamp;
  if (o.memoHex) {
    const memo = strip0x(o.memoHex);
    if (!isHexString(memo)) throw new Error("memoHex must be hex");
    raw.data = memo.toLowerCase();
  }
  if (o.feeLimit !== undefined && BigInt(o.feeLimit) > 0n)
    raw.fee_limit = int64ToNumber(o.feeLimit, "feeLimit");
  return finalizeTransaction(raw);
}

export interface TrxTransferInput extends CommonTxOptions {
  from: string;
  to: string;
  /** sun */
  amount: bigint;
}

export function buildTrxTransfer(i: TrxTransferInput): TransactionJson {
  return build(
    {
      type: "TransferContract",
      parameter: {
        type_url: TYPE_URL_PREFIX + "TransferContract",
        value: {
          owner_address: toHex(i.from),
          to_address: toHex(i.to),
          amount: int64ToNumber(i.amount, "amount", 1n),
        },
      },
    },
    i,
  );
}

export interface TriggerSmartContractInput extends CommonTxOptions {
  owner: string;
  contract: string;
  /** calldata hex (selector + ABI words), 0x optional */
  data: string;
  callValue?: bigint;
  feeLimit: bigint | number;
}

export function buildTriggerSmartContract(i: TriggerSmartContractInput): TransactionJson {
  const data = strip0x(i.data).toLowerCase();
  if (!isHexString(data)) throw new Error("data must be hex");
  const value: TriggerSmartContractJson = {
    owner_address: toHex(i.owner),
    contract_address: toHex(i.contract),
  };
  if (i.callValue) value.call_value = int64ToNumber(i.callValue, "callValue");
  if (data) value.data = data;
  return build(
    {
      type: "TriggerSmartContract",
      parameter: { type_url: TYPE_URL_PREFIX + "TriggerSmartContract", value },
    },
    i,
  );
}

export interface DelegateResourceInput extends CommonTxOptions {
  owner: string;
  receiver: string;
  /** sun of staked TRX whose resource is delegated */
  balance: bigint;
  resource: ResourceCode;
  lock?: boolean;
  /** in blocks (3 s each) */
  lockPeriod?: bigint | number;
}

function resourceField(resource: ResourceCode): { resource?: ResourceCode } {
  // java-tron's JSON omits enum defaults, so BANDWIDTH (0) is absent.
  return resource === "BANDWIDTH" ? {} : { resource };
}

export function buildDelegateResource(i: DelegateResourceInput): TransactionJson {
  const value = {
    owner_address: toHex(i.owner),
    ...resourceField(i.resource),
    balance: int64ToNumber(i.balance, "balance", 1n),
    receiver_address: toHex(i.receiver),
    ...(i.lock ? { lock: true } : {}),
    ...(i.lockPeriod ? { lock_period: int64ToNumber(i.lockPeriod, "lockPeriod") } : {}),
  };
  return build(
    {
      type: "DelegateResourceContract",
      parameter: { type_url: TYPE_URL_PREFIX + "DelegateResourceContract", value },
    },
    i,
  );
}

export interface UnDelegateResourceInput extends CommonTxOptions {
  owner: string;
  receiver: string;
  balance: bigint;
  resource: ResourceCode;
}

export function buildUnDelegateResource(i: UnDelegateResourceInput): TransactionJson {
  const value = {
    owner_address: toHex(i.owner),
    ...resourceField(i.resource),
    balance: int64ToNumber(i.balance, "balance", 1n),
    receiver_address: toHex(i.receiver),
  };
  return build(
    {
      type: "UnDelegateResourceContract",
      parameter: { type_url: TYPE_URL_PREFIX + "UnDelegateResourceContract", value },
    },
    i,
  );
}

export interface FreezeBalanceV2Input extends CommonTxOptions {
  owner: string;
  /** sun to stake */
  amount: bigint;
  resource: ResourceCode;
}

export function buildFreezeBalanceV2(i: FreezeBalanceV2Input): TransactionJson {
  const value = {
    owner_address: toHex(i.owner),
    frozen_balance: int64ToNumber(i.amount, "amount", 1n),
    ...resourceField(i.resource),
  };
  return build(
    {
      type: "FreezeBalanceV2Contract",
      parameter: { type_url: TYPE_URL_PREFIX + "FreezeBalanceV2Contract", value },
    },
    i,
  );
}

export interface UnfreezeBalanceV2Input extends CommonTxOptions {
  owner: string;
  /** sun to unstake; it can be withdrawn once the unfreeze delay has passed */
  amount: bigint;
  resource: ResourceCode;
}

export function buildUnfreezeBalanceV2(i: UnfreezeBalanceV2Input): TransactionJson {
  const value = {
    owner_address: toHex(i.owner),
    unfreeze_balance: int64ToNumber(i.amount, "amount", 1n),
    ...resourceField(i.resource),
  };
  return build(
    {
      type: "UnfreezeBalanceV2Contract",
      parameter: { type_url: TYPE_URL_PREFIX + "UnfreezeBalanceV2Contract", value },
    },
    i,
  );
}

export interface WithdrawExpireUnfreezeInput extends CommonTxOptions {
  owner: string;
}

export function buildWithdrawExpireUnfreeze(i: WithdrawExpireUnfreezeInput): TransactionJson {
  return build(
    {
      type: "WithdrawExpireUnfreezeContract",
      parameter: {
        type_url: TYPE_URL_PREFIX + "WithdrawExpireUnfreezeContract",
        value: { owner_address: toHex(i.owner) },
      },
    },
    i,
  );
}
