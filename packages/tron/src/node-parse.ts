// Shape checks of java-tron answers for the node client: anything unexpected is a retryable
// "malformed" TronNodeError, never a crash further in.
import { TronNodeError } from "./node-errors.js";
import type { BlockJson } from "./node-types.js";
import type { ResourceCode } from "./protobuf.js";

export type Json = Record<string, unknown>;

export const RESOURCE_TYPE: Record<ResourceCode, number> = { BANDWIDTH: 0, ENERGY: 1, TRON_POWER: 2 };

export function optionalNumber(path: string, v: Json, key: string): number {
  const x = v[key];
  if (x === undefined) return 0; // java-tron omits zero
  if (typeof x !== "number") throw new TronNodeError("malformed", path, `${key} is not a number`);
  return x;
}

export function stringList(path: string, v: unknown, key: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string"))
    throw new TronNodeError("malformed", path, `${key} is not a list of addresses`);
  return v as string[];
}

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
export const isEmpty = (v: Json) => Object.keys(v).length === 0;

export function checkBlock(path: string, v: unknown): BlockJson {
  if (
    !isObject(v) ||
    typeof v.blockID !== "string" ||
    !isObject(v.block_header) ||
    !isObject((v.block_header as Json).raw_data)
  ) {
    throw new TronNodeError("malformed", path, "response is not a block");
  }
  return v as unknown as BlockJson;
}

/** A block header answer: a block whose header has a parentHash; transactions, if sent anyway, dropped. */
export function checkHeader(path: string, v: unknown): BlockJson {
  const block = checkBlock(path, v);
  if (typeof block.block_header.raw_data.parentHash !== "string") {
    throw new TronNodeError("malformed", path, "block header has no parentHash");
  }
  if (block.transactions === undefined) return block;
  const { transactions: _dropped, ...header } = block;
  return header;
}

/** java-tron's id_or_num: a block number in decimal or a 64-hex blockID. */
export function idOrNum(v: number | string): string {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0)
      throw new RangeError(`block number ${v} is not a non-negative integer`);
    return String(v);
  }
  const id = v.replace(/^0x/, "");
  if (!/^[0-9a-fA-F]{64}$/.test(id)) throw new RangeError("a block id is 64 hex digits");
  return id.toLowerCase();
}
