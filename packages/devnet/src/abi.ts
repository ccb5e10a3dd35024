// The few ABI pieces a TRC20 emulation needs. Kept local because devnet only needs fixed selectors
// and word-level decoding; @stablegate/tron/abi is the service's general encoder.
import { utf8ToHex, word } from "./util.js";

export const SELECTORS = {
  transfer: "a9059cbb",
  transferFrom: "23b872dd",
  approve: "095ea7b3",
  allowance: "dd62ed3e",
  balanceOf: "70a08231",
  decimals: "313ce567",
  name: "06fdde03",
  symbol: "95d89b41",
  totalSupply: "18160ddd",
} as const;

export type Trc20Method = keyof typeof SELECTORS;

const BY_SELECTOR = new Map<string, Trc20Method>(
  Object.entries(SELECTORS).map(([k, v]) => [v, k as Trc20Method]),
);

export const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
export const APPROVAL_TOPIC = "8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925";

const ARG_COUNT: Record<Trc20Method, number> = {
  transfer: 2,
  transferFrom: 3,
  approve: 2,
  allowance: 2,
  balanceOf: 1,
  decimals: 0,
  name: 0,
  symbol: 0,
  totalSupply: 0,
};

export interface DecodedCall {
  method: Trc20Method;
  /** Raw 32-byte words after the selector. */
  words: bigint[];
}

/** null when the selector is unknown or the arguments are short (the contract reverts then). */
export function decodeTrc20Call(dataHex: string): DecodedCall | null {
  const data = dataHex.toLowerCase();
  const method = BY_SELECTOR.get(data.slice(0, 8));
  if (!method) return null;
  const n = ARG_COUNT[method];
  if (data.length < 8 + n * 64) return null;
  const words: bigint[] = [];
  for (let i = 0; i < n; i++) words.push(BigInt("0x" + data.slice(8 + i * 64, 8 + (i + 1) * 64)));
  return { method, words };
}

/** An address argument word as 20-byte hex (no 41 prefix); the upper 12 bytes are ignored as the EVM does. */
export function wordToEvmAddress(w: bigint): string {
  return (w & ((1n << 160n) - 1n)).toString(16).padStart(40, "0");
}

export function encodeUint(v: bigint): string {
  return word(v);
}

export function encodeBool(b: boolean): string {
  return word(b ? 1n : 0n);
}

export function encodeString(s: string): string {
  const hex = utf8ToHex(s);
  const padded = hex.padEnd(Math.ceil(hex.length / 64) * 64, "0");
  return word(32n) + word(BigInt(hex.length / 2)) + padded;
}

/** Solidity's Error(string) revert payload, what `require(cond, "msg")` returns. */
export function encodeRevert(message: string): string {
  return "08c379a0" + encodeString(message);
}

export function addressTopic(evmHex: string): string {
  return evmHex.padStart(64, "0");
}

type AbiParam = { indexed?: boolean; name?: string; type: string };
type AbiEntry = {
  anonymous?: boolean;
  constant?: boolean;
  inputs?: AbiParam[];
  name?: string;
  outputs?: AbiParam[];
  stateMutability?: string;
  type: string;
};

/** TRC20 ABI in java-tron's getcontract shape (`abi.entrys`, capitalised type and mutability). */
export const TRC20_ABI: AbiEntry[] = [
  { outputs: [{ type: "string" }], constant: true, name: "name", stateMutability: "View", type: "Function" },
  {
    inputs: [
      { name: "_spender", type: "address" },
      { name: "_value", type: "uint256" },
    ],
    name: "approve",
    outputs: [{ type: "bool" }],
    stateMutability: "Nonpayable",
    type: "Function",
  },
  {
    outputs: [{ type: "uint256" }],
    constant: true,
    name: "totalSupply",
    stateMutability: "View",
    type: "Function",
  },
  {
    inputs: [
      { name: "_from", type: "address" },
      { name: "_to", type: "address" },
      { name: "_value", type: "uint256" },
    ],
    name: "transferFrom",
    outputs: [{ type: "bool" }],
    stateMutability: "Nonpayable",
    type: "Function",
  },
  {
    outputs: [{ type: "uint8" }],
    constant: true,
    name: "decimals",
    stateMutability: "View",
    type: "Function",
  },
  {
    outputs: [{ name: "balance", type: "uint256" }],
    constant: true,
    inputs: [{ name: "who", type: "address" }],
    name: "balanceOf",
    stateMutability: "View",
    type: "Function",
  },
  {
    outputs: [{ type: "string" }],
    constant: true,
    name: "symbol",
    stateMutability: "View",
    type: "Function",
  },
  {
    inputs: [
      { name: "_to", type: "address" },
      { name: "_value", type: "uint256" },
    ],
    name: "transfer",
    outputs: [{ type: "bool" }],
    stateMutability: "Nonpayable",
    type: "Function",
  },
  {
    outputs: [{ name: "remaining", type: "uint256" }],
    constant: true,
    inputs: [
      { name: "_owner", type: "address" },
      { name: "_spender", type: "address" },
    ],
    name: "allowance",
    stateMutability: "View",
    type: "Function",
  },
  {
    inputs: [
      { indexed: true, name: "owner", type: "address" },
      { indexed: true, name: "spender", type: "address" },
      { name: "value", type: "uint256" },
    ],
    name: "Approval",
    type: "Event",
  },
  {
    inputs: [
      { indexed: true, name: "from", type: "address" },
      { indexed: true, name: "to", type: "address" },
      { name: "value", type: "uint256" },
    ],
    name: "Transfer",
    type: "Event",
  },
];

export const VIEW_METHODS: ReadonlySet<Trc20Method> = new Set([
  "name",
  "symbol",
  "decimals",
  "totalSupply",
  "balanceOf",
  "allowance",
]);
