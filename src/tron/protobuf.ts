import { sha256 } from "@noble/hashes/sha2.js";
import { hexToBase58, toHex } from "./address.js";
import { bytesToHex, concatBytes, hexToBytes } from "./bytes.js";

// Transaction.raw as in java-tron protocol/core/Tron.proto, encoded exactly as TronWeb 6's google-protobuf
// does: ascending field numbers, proto3 defaults (0, empty bytes, false) omitted.

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
const CONTRACT_TYPE_NAMES = new Map<number, ContractTypeName>(
  Object.entries(CONTRACT_TYPE_IDS).map(([k, v]) => [v, k as ContractTypeName]),
);
const RESOURCE_CODES: ResourceCode[] = ["BANDWIDTH", "ENERGY", "TRON_POWER"];
export const TYPE_URL_PREFIX = "type.googleapis.com/protocol.";

// ---- writer ----

const MASK64 = (1n << 64n) - 1n;

function varint(value: bigint): Uint8Array {
  // int32/int64/enum: negative numbers are their 64-bit two's complement, as protobuf specifies.
  let v = value & MASK64;
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

class Writer {
  private parts: Uint8Array[] = [];
  private tag(field: number, wire: number): void {
    this.parts.push(varint(BigInt((field << 3) | wire)));
  }
  int(field: number, v: number | bigint | boolean | undefined): void {
    if (v === undefined || v === 0 || v === 0n || v === false) return;
    const n = typeof v === "boolean" ? 1n : BigInt(v);
    this.tag(field, 0);
    this.parts.push(varint(n));
  }
  bytes(field: number, b: Uint8Array | undefined): void {
    if (!b || b.length === 0) return;
    this.tag(field, 2);
    this.parts.push(varint(BigInt(b.length)), b);
  }
  /** Sub-messages are written whenever present, even when they encode to zero bytes. */
  message(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.parts.push(varint(BigInt(b.length)), b);
  }
  hex(field: number, h: string | undefined): void {
    if (h) this.bytes(field, hexToBytes(h));
  }
  address(field: number, a: string | undefined): void {
    if (a) this.bytes(field, hexToBytes(toHex(a)));
  }
  string(field: number, s: string | undefined): void {
    if (s) this.bytes(field, new TextEncoder().encode(s));
  }
  finish(): Uint8Array {
    return concatBytes(...this.parts);
  }
}

function encodeValue(c: ContractJson): Uint8Array {
  const w = new Writer();
  switch (c.type) {
    case "TransferContract": {
      const v = c.parameter.value;
      w.address(1, v.owner_address);
      w.address(2, v.to_address);
      w.int(3, v.amount);
      break;
    }
    case "TriggerSmartContract": {
      const v = c.parameter.value;
      w.address(1, v.owner_address);
      w.address(2, v.contract_address);
      w.int(3, v.call_value);
      w.hex(4, v.data);
      w.int(5, v.call_token_value);
      w.int(6, v.token_id);
      break;
    }
    case "FreezeBalanceV2Contract": {
      const v = c.parameter.value;
      w.address(1, v.owner_address);
      w.int(2, v.frozen_balance);
      w.int(3, v.resource ? resourceId(v.resource) : 0);
      break;
    }
    case "UnfreezeBalanceV2Contract": {
      const v = c.parameter.value;
      w.address(1, v.owner_address);
      w.int(2, v.unfreeze_balance);
      w.int(3, v.resource ? resourceId(v.resource) : 0);
      break;
    }
    case "WithdrawExpireUnfreezeContract":
      w.address(1, c.parameter.value.owner_address);
      break;
    case "DelegateResourceContract":
    case "UnDelegateResourceContract": {
      const v = c.parameter.value;
      w.address(1, v.owner_address);
      w.int(2, v.resource ? resourceId(v.resource) : 0);
      w.int(3, v.balance);
      w.address(4, v.receiver_address);
      if (c.type === "DelegateResourceContract") {
        w.int(5, c.parameter.value.lock);
        w.int(6, c.parameter.value.lock_period);
      }
      break;
    }
    default:
      throw new Error(`unsupported contract type ${(c as { type: string }).type}`);
  }
  return w.finish();
}

function resourceId(r: ResourceCode): number {
  const i = RESOURCE_CODES.indexOf(r);
  if (i < 0) throw new Error(`unknown resource ${String(r)}`);
  return i;
}

function encodeContract(c: ContractJson): Uint8Array {
  const typeId = CONTRACT_TYPE_IDS[c.type];
  if (typeId === undefined) throw new Error(`unsupported contract type ${String(c.type)}`);
  const any = new Writer();
  any.string(1, c.parameter.type_url || TYPE_URL_PREFIX + c.type);
  any.bytes(2, encodeValue(c));
  const w = new Writer();
  w.int(1, typeId);
  w.message(2, any.finish());
  w.hex(3, c.provider);
  w.hex(4, c.ContractName);
  w.int(5, c.Permission_id);
  return w.finish();
}

export function encodeRawData(raw: RawDataJson): Uint8Array {
  const w = new Writer();
  w.hex(1, raw.ref_block_bytes);
  w.int(3, raw.ref_block_num);
  w.hex(4, raw.ref_block_hash);
  w.int(8, raw.expiration);
  w.hex(10, raw.data);
  for (const c of raw.contract) w.message(11, encodeContract(c));
  w.hex(12, raw.scripts);
  w.int(14, raw.timestamp);
  w.int(18, raw.fee_limit);
  return w.finish();
}

export function rawDataHex(raw: RawDataJson): string {
  return bytesToHex(encodeRawData(raw));
}

/** sha256 of the raw_data bytes, the transaction id java-tron uses. */
export function txIdOf(rawDataHexStr: string): string {
  return bytesToHex(sha256(hexToBytes(rawDataHexStr)));
}

// ---- reader ----

type Field = { field: number; wire: number; int?: bigint; bytes?: Uint8Array };

function readFields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let pos = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error("truncated protobuf varint");
      const b = buf[pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw new Error("protobuf varint too long");
    }
    return result & MASK64;
  };
  while (pos < buf.length) {
    const key = Number(readVarint());
    const field = key >>> 3;
    const wire = key & 7;
    if (field === 0) throw new Error("invalid protobuf field number 0");
    if (wire === 0) out.push({ field, wire, int: readVarint() });
    else if (wire === 2) {
      const len = Number(readVarint());
      if (pos + len > buf.length) throw new Error("truncated protobuf bytes");
      out.push({ field, wire, bytes: buf.subarray(pos, pos + len) });
      pos += len;
    } else if (wire === 1 || wire === 5) {
      const len = wire === 1 ? 8 : 4;
      if (pos + len > buf.length) throw new Error("truncated protobuf fixed field");
      pos += len;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
  return out;
}

function toSafeNumber(v: bigint, signed = true): number {
  const n = signed && v >= 1n << 63n ? v - (1n << 64n) : v;
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError("protobuf integer exceeds the safe JSON number range");
  }
  return Number(n);
}

class Fields {
  constructor(private readonly list: Field[]) {}
  private last(field: number, wire: number): Field | undefined {
    let found: Field | undefined;
    for (const f of this.list) {
      if (f.field !== field) continue;
      if (f.wire !== wire) throw new Error(`protobuf field ${field} has the wrong wire type`);
      found = f;
    }
    return found;
  }
  int(field: number): number | undefined {
    const f = this.last(field, 0);
    return f ? toSafeNumber(f.int as bigint) : undefined;
  }
  bytes(field: number): Uint8Array | undefined {
    return this.last(field, 2)?.bytes;
  }
  hex(field: number): string | undefined {
    const b = this.bytes(field);
    return b ? bytesToHex(b) : undefined;
  }
  all(field: number): Uint8Array[] {
    return this.list.filter((f) => f.field === field && f.wire === 2).map((f) => f.bytes as Uint8Array);
  }
}

export interface DecodeOptions {
  /** true: addresses as base58 (java-tron `visible=true`); default hex '41…'. */
  visible?: boolean;
}

function put<T extends object, K extends keyof T>(obj: T, key: K, v: T[K] | undefined): void {
  if (v !== undefined && v !== 0 && v !== "" && v !== false) obj[key] = v;
}

function decodeValue(
  type: ContractTypeName,
  bytes: Uint8Array,
  visible: boolean,
): ContractJson["parameter"]["value"] {
  const f = new Fields(readFields(bytes));
  const addr = (n: number): string => {
    const h = f.hex(n);
    if (h === undefined) return "";
    return visible ? hexToBase58(h) : h;
  };
  const resource = (n: number): ResourceCode | undefined => {
    const r = f.int(n);
    if (!r) return undefined;
    const code = RESOURCE_CODES[r];
    if (!code) throw new Error(`unknown resource code ${r}`);
    return code;
  };
  switch (type) {
    case "TransferContract":
      return { owner_address: addr(1), to_address: addr(2), amount: f.int(3) ?? 0 };
    case "FreezeBalanceV2Contract": {
      const v: FreezeBalanceV2ContractJson = { owner_address: addr(1), frozen_balance: f.int(2) ?? 0 };
      put(v, "resource", resource(3));
      return v;
    }
    case "UnfreezeBalanceV2Contract": {
      const v: UnfreezeBalanceV2ContractJson = { owner_address: addr(1), unfreeze_balance: f.int(2) ?? 0 };
      put(v, "resource", resource(3));
      return v;
    }
    case "WithdrawExpireUnfreezeContract":
      return { owner_address: addr(1) };
    case "TriggerSmartContract": {
      const v: TriggerSmartContractJson = { owner_address: addr(1), contract_address: addr(2) };
      put(v, "call_value", f.int(3));
      put(v, "data", f.hex(4));
      put(v, "call_token_value", f.int(5));
      put(v, "token_id", f.int(6));
      return v;
    }
    case "DelegateResourceContract":
    case "UnDelegateResourceContract": {
      const v: DelegateResourceContractJson = {
        owner_address: addr(1),
        balance: f.int(3) ?? 0,
        receiver_address: addr(4),
      };
      put(v, "resource", resource(2));
      if (type === "DelegateResourceContract") {
        put(v, "lock", f.int(5) ? true : undefined);
        put(v, "lock_period", f.int(6));
      }
      return v;
    }
  }
}

function decodeContract(bytes: Uint8Array, visible: boolean): ContractJson {
  const f = new Fields(readFields(bytes));
  const typeId = f.int(1) ?? 0;
  const type = CONTRACT_TYPE_NAMES.get(typeId);
  if (!type) throw new Error(`unsupported contract type ${typeId}`);
  const any = new Fields(readFields(f.bytes(2) ?? new Uint8Array()));
  const typeUrl = new TextDecoder().decode(any.bytes(1) ?? new Uint8Array());
  if (typeUrl !== TYPE_URL_PREFIX + type) throw new Error(`contract type_url does not match type ${type}`);
  const value = decodeValue(type, any.bytes(2) ?? new Uint8Array(), visible);
  const c = { type, parameter: { type_url: typeUrl, value } } as ContractJson;
  put(c, "provider", f.hex(3));
  put(c, "ContractName", f.hex(4));
  put(c, "Permission_id", f.int(5));
  return c;
}

export function decodeRawData(bytes: Uint8Array, opts: DecodeOptions = {}): RawDataJson {
  const f = new Fields(readFields(bytes));
  const raw: RawDataJson = {
    ref_block_bytes: f.hex(1) ?? "",
    ref_block_hash: f.hex(4) ?? "",
    expiration: f.int(8) ?? 0,
    contract: f.all(11).map((c) => decodeContract(c, opts.visible ?? false)),
  };
  put(raw, "ref_block_num", f.int(3));
  put(raw, "data", f.hex(10));
  put(raw, "scripts", f.hex(12));
  put(raw, "timestamp", f.int(14));
  put(raw, "fee_limit", f.int(18));
  return raw;
}

export function decodeRawDataHex(hex: string, opts: DecodeOptions = {}): RawDataJson {
  return decodeRawData(hexToBytes(hex), opts);
}

/** Converts a raw_data's addresses between hex and base58 (java-tron's `visible` flag). */
export function withVisibleAddresses(raw: RawDataJson, visible: boolean): RawDataJson {
  return decodeRawData(encodeRawData(raw), { visible });
}
