import { sha256 } from "@noble/hashes/sha2.js";
import { toHex } from "./address.js";
import { bytesToHex, concatBytes, hexToBytes } from "./bytes.js";
import { decodeRawData } from "./protobuf-read.js";
import {
  CONTRACT_TYPE_IDS,
  MASK64,
  RESOURCE_CODES,
  TYPE_URL_PREFIX,
  type ContractJson,
  type RawDataJson,
  type ResourceCode,
} from "./protobuf-types.js";

// Transaction.raw as in java-tron protocol/core/Tron.proto, encoded exactly as TronWeb 6's google-protobuf
// does: ascending field numbers, proto3 defaults (0, empty bytes, false) omitted. Decoding is in
// protobuf-read.ts, the JSON types in protobuf-types.ts; both are re-exported here.

export { CONTRACT_TYPE_IDS, TYPE_URL_PREFIX } from "./protobuf-types.js";
export type {
  ContractJson,
  ContractTypeName,
  DelegateResourceContractJson,
  FreezeBalanceV2ContractJson,
  RawDataJson,
  ResourceCode,
  TransactionJson,
  TransferContractJson,
  TriggerSmartContractJson,
  UnDelegateResourceContractJson,
  UnfreezeBalanceV2ContractJson,
  WithdrawExpireUnfreezeContractJson,
} from "./protobuf-types.js";
export { decodeRawData, decodeRawDataHex, type DecodeOptions } from "./protobuf-read.js";

// ---- writer ----

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

/** Converts a raw_data's addresses between hex and base58 (java-tron's `visible` flag). */
export function withVisibleAddresses(raw: RawDataJson, visible: boolean): RawDataJson {
  return decodeRawData(encodeRawData(raw), { visible });
}
