import { keccak_256 } from "@noble/hashes/sha3.js";
import { evmHex, hexToBase58 } from "./address.js";
import { bytesToHex, hexToBytes, isHexString, strip0x } from "./bytes.js";

// TRC20 ABI: the EVM's, with 20-byte addresses in words (the 41 prefix never appears on the wire).
// Calldata is hex without 0x, as TRON's TriggerSmartContract.data and java-tron JSON carry it.

export const SELECTORS = {
  transfer: "a9059cbb",
  transferFrom: "23b872dd",
  approve: "095ea7b3",
  balanceOf: "70a08231",
  allowance: "dd62ed3e",
  decimals: "313ce567",
  totalSupply: "18160ddd",
  name: "06fdde03",
  symbol: "95d89b41",
} as const;
export type Trc20Method = keyof typeof SELECTORS;

/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/** keccak256("Approval(address,address,uint256)") */
export const APPROVAL_TOPIC = "8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925";

const MAX_UINT256 = (1n << 256n) - 1n;

export function selectorOf(signature: string): string {
  return bytesToHex(keccak_256(new TextEncoder().encode(signature))).slice(0, 8);
}

export function encodeUint256(v: bigint): string {
  if (typeof v !== "bigint" || v < 0n || v > MAX_UINT256) throw new RangeError("uint256 out of range");
  return v.toString(16).padStart(64, "0");
}

export function encodeAddress(addr: string): string {
  return evmHex(addr).padStart(64, "0");
}

export function encodeBool(v: boolean): string {
  return encodeUint256(v ? 1n : 0n);
}

/** ABI encoding of a single dynamic `string` return value (offset, length, padded bytes). */
export function encodeString(s: string): string {
  const bytes = bytesToHex(new TextEncoder().encode(s));
  const padded = bytes.padEnd(Math.ceil(bytes.length / 64) * 64, "0");
  return encodeUint256(32n) + encodeUint256(BigInt(bytes.length / 2)) + padded;
}

export function encodeTransfer(to: string, amount: bigint): string {
  return SELECTORS.transfer + encodeAddress(to) + encodeUint256(amount);
}
export function encodeTransferFrom(from: string, to: string, amount: bigint): string {
  return SELECTORS.transferFrom + encodeAddress(from) + encodeAddress(to) + encodeUint256(amount);
}
export function encodeApprove(spender: string, amount: bigint): string {
  return SELECTORS.approve + encodeAddress(spender) + encodeUint256(amount);
}
export function encodeBalanceOf(owner: string): string {
  return SELECTORS.balanceOf + encodeAddress(owner);
}
export function encodeAllowance(owner: string, spender: string): string {
  return SELECTORS.allowance + encodeAddress(owner) + encodeAddress(spender);
}
export function encodeDecimals(): string {
  return SELECTORS.decimals;
}

/** A uint256 word (or any hex up to 32 bytes, e.g. a constant_result) to bigint; "" is 0. */
export function decodeUint256(hex: string): bigint {
  const h = strip0x(hex);
  if (h.length > 64 || !/^[0-9a-fA-F]*$/.test(h)) throw new Error("invalid uint256 hex");
  return h.length === 0 ? 0n : BigInt("0x" + h);
}

/** A 32-byte address word to base58, or null when the upper 12 bytes are not zero. */
export function decodeAddressWord(word: string): string | null {
  const w = strip0x(word).toLowerCase();
  if (w.length !== 64 || !isHexString(w) || !w.startsWith("0".repeat(24))) return null;
  return hexToBase58("41" + w.slice(24));
}

/** Decodes an ABI-encoded single `string` return value; throws when malformed. */
export function decodeString(hex: string): string {
  const h = strip0x(hex);
  const offset = Number(decodeUint256(h.slice(0, 64)));
  const start = offset * 2;
  const len = Number(decodeUint256(h.slice(start, start + 64)));
  const body = h.slice(start + 64, start + 64 + len * 2);
  if (body.length !== len * 2) throw new Error("truncated ABI string");
  return new TextDecoder("utf-8", { fatal: true }).decode(hexToBytes(body));
}

export interface TransferLog {
  /** the token contract, base58 */
  contract: string;
  from: string;
  to: string;
  value: bigint;
}

/**
 * A TRC20 Transfer event from a java-tron log ({address, topics, data} in hex, 0x optional), or null for
 * anything else: other events, ERC-721-style Transfers (4 topics), or malformed words.
 */
export function decodeTransferLog(log: {
  address: string;
  topics?: string[];
  data?: string;
}): TransferLog | null {
  if (!log || !Array.isArray(log.topics) || log.topics.length !== 3) return null;
  const [t0, t1, t2] = log.topics.map((t) => (typeof t === "string" ? strip0x(t).toLowerCase() : ""));
  if (t0 !== TRANSFER_TOPIC) return null;
  const data = typeof log.data === "string" ? strip0x(log.data) : "";
  if (data.length !== 64 || !isHexString(data)) return null;
  const from = decodeAddressWord(t1 as string);
  const to = decodeAddressWord(t2 as string);
  if (!from || !to) return null;
  let contract: string;
  try {
    contract = hexToBase58(log.address);
  } catch {
    return null;
  }
  return { contract, from, to, value: BigInt("0x" + data) };
}

export type DecodedCall =
  | { method: "transfer"; args: { to: string; amount: bigint } }
  | { method: "transferFrom"; args: { from: string; to: string; amount: bigint } }
  | { method: "approve"; args: { spender: string; amount: bigint } }
  | { method: "balanceOf"; args: { owner: string } }
  | { method: "allowance"; args: { owner: string; spender: string } }
  | { method: "decimals" | "totalSupply" | "name" | "symbol"; args: Record<string, never> }
  | { method: "unknown"; selector: string; args: Record<string, never> };

const BY_SELECTOR = new Map<string, Trc20Method>(
  Object.entries(SELECTORS).map(([name, sel]) => [sel, name as Trc20Method]),
);

/**
 * Decodes TRC20 calldata (addresses as base58). Null when the data is not hex, shorter than a selector,
 * too short for the method's arguments, or an address word has dirty upper bytes (a revert on chain).
 */
export function decodeCall(dataHex: string): DecodedCall | null {
  const d = strip0x(dataHex).toLowerCase();
  if (d.length < 8 || !isHexString(d)) return null;
  const selector = d.slice(0, 8);
  const method = BY_SELECTOR.get(selector);
  if (!method) return { method: "unknown", selector, args: {} };
  const words = (n: number): string[] | null => {
    if (d.length < 8 + 64 * n) return null;
    return Array.from({ length: n }, (_, i) => d.slice(8 + 64 * i, 8 + 64 * (i + 1)));
  };
  const addrs = (ws: string[]): string[] | null => {
    const out = ws.map(decodeAddressWord);
    return out.every((a): a is string => a !== null) ? out : null;
  };
  switch (method) {
    case "transfer":
    case "approve": {
      const w = words(2);
      const a = w && addrs([w[0] as string]);
      if (!w || !a) return null;
      const amount = decodeUint256(w[1] as string);
      return method === "transfer"
        ? { method, args: { to: a[0] as string, amount } }
        : { method, args: { spender: a[0] as string, amount } };
    }
    case "transferFrom": {
      const w = words(3);
      const a = w && addrs([w[0] as string, w[1] as string]);
      if (!w || !a) return null;
      return {
        method,
        args: { from: a[0] as string, to: a[1] as string, amount: decodeUint256(w[2] as string) },
      };
    }
    case "balanceOf": {
      const w = words(1);
      const a = w && addrs(w);
      return a ? { method, args: { owner: a[0] as string } } : null;
    }
    case "allowance": {
      const w = words(2);
      const a = w && addrs(w);
      return a ? { method, args: { owner: a[0] as string, spender: a[1] as string } } : null;
    }
    default:
      return { method, args: {} };
  }
}
