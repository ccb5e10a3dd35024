// Decoding Transaction.raw bytes back to java-tron's JSON: the devnet reads what clients broadcast with
// it, and tests check the encoder against it.
import { hexToBase58 } from "./address.js";
import { bytesToHex, hexToBytes } from "./bytes.js";
import {
  CONTRACT_TYPE_NAMES,
  MASK64,
  RESOURCE_CODES,
  TYPE_URL_PREFIX,
  type ContractJson,
  type ContractTypeName,
  type DelegateResourceContractJson,
  type FreezeBalanceV2ContractJson,
  type RawDataJson,
  type ResourceCode,
  type TriggerSmartContractJson,
  type UnfreezeBalanceV2ContractJson,
} from "./protobuf-types.js";

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
