// Block headers as java-tron hashes them: blockID = 8-byte big-endian number + the last 24 bytes of
// sha256(BlockHeader.raw). txTrieRoot is simplified to sha256 over the concatenated txIDs.
import { signDigest } from "@stablegate/tron/sign";
import type { Journal } from "./state.js";
import type { Log } from "./trc20.js";
import type { RawDataJson } from "@stablegate/tron/protobuf";
import { addressTopic, TRANSFER_TOPIC } from "./abi.js";
import { bytesToHex, hexToBytes, sha256Bytes, sha256Hex, word } from "./util.js";

export type ContractRet = "SUCCESS" | "REVERT" | "OUT_OF_ENERGY";

export interface TxInfoCore {
  /** Total TRX burned (energy + bandwidth + creation fee). */
  fee: bigint;
  /** Return or revert data of a contract call; "" for system contracts. */
  contractResult: string;
  /** '41…' hex of the called contract, for TriggerSmartContract. */
  contractAddress?: string;
  energyFee: bigint;
  /** receipt.energy_usage: the part of energyUsageTotal paid with staked (own or delegated) energy */
  energyUsage?: bigint;
  energyUsageTotal: bigint;
  netUsage: number;
  netFee: bigint;
  /** receipt.result; absent for system contracts, as on mainnet. */
  result?: ContractRet;
  logs: Log[];
  /** Human text; java-tron prints it hex-encoded in resMessage. */
  resMessage?: string;
  /** UnfreezeBalanceV2 / WithdrawExpireUnfreeze: expired unfrozen stake returned to the balance */
  withdrawExpireAmount?: bigint;
}

export interface TxRecord {
  id: string;
  /** raw_data bytes as hex; generated load traffic keeps rawBuf instead (see rawHexOf). */
  rawHex?: string;
  rawBuf?: Buffer;
  /** raw_data with hex addresses; decoded lazily for generated load traffic. */
  raw?: RawDataJson;
  /** Absent for generated load traffic, which carries a placeholder (see signaturesOf). */
  signatures?: string[];
  contractRet: ContractRet;
  /** Shared between generated transactions of the same shape, so never mutate it. */
  info: TxInfoCore;
  /** Generated traffic keeps its one Transfer compactly; logsOf() expands it into the log. */
  transfer?: { token: string; from: string; to: string; amount: bigint };
  blockNumber: number;
}

export interface Block {
  number: number;
  id: string;
  parentHash: string;
  timestamp: number;
  txTrieRoot: string;
  witnessAddress: string;
  witnessSignature: string;
  txs: TxRecord[];
  /** Undo log of the block's state changes; dropped once the block is solidified. */
  journal: Journal | null;
  /** gettransactioninfobyblocknum reply, serialised once. */
  infoJson?: string;
}

export function rawHexOf(tx: TxRecord): string {
  return tx.rawHex ?? (tx.rawBuf as Buffer).toString("hex");
}

/** Generated traffic is not signed by any key: its placeholder is txID || txID || 1b. */
export function signaturesOf(tx: TxRecord): string[] {
  return tx.signatures ?? [tx.id + tx.id + "1b"];
}

export function logsOf(tx: TxRecord): Log[] {
  const t = tx.transfer;
  if (!t) return tx.info.logs;
  return [
    {
      address: t.token,
      topics: [TRANSFER_TOPIC, addressTopic(t.from), addressTopic(t.to)],
      data: word(t.amount),
    },
  ];
}

export const BLOCK_VERSION = 32;
const ZERO32 = "0".repeat(64);

function varint(n: number): number[] {
  const out: number[] = [];
  let v = BigInt(n);
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

function bytesField(field: number, hex: string): number[] {
  const b = hexToBytes(hex);
  return [(field << 3) | 2, ...varint(b.length), ...b];
}

function intField(field: number, n: number): number[] {
  return n === 0 ? [] : [(field << 3) | 0, ...varint(n)];
}

/** BlockHeader.raw in field order: timestamp 1, txTrieRoot 2, parentHash 3, number 7, witness_address 9, version 10. */
export function encodeHeaderRaw(h: {
  timestamp: number;
  txTrieRoot: string;
  parentHash: string;
  number: number;
  witnessAddress: string;
}): Uint8Array {
  return Uint8Array.from([
    ...intField(1, h.timestamp),
    ...bytesField(2, h.txTrieRoot),
    ...bytesField(3, h.parentHash),
    ...intField(7, h.number),
    ...bytesField(9, h.witnessAddress),
    ...intField(10, BLOCK_VERSION),
  ]);
}

export function txTrieRoot(txIds: string[]): string {
  return txIds.length === 0 ? ZERO32 : sha256Hex(Buffer.from(txIds.join(""), "hex"));
}

export function makeBlock(args: {
  number: number;
  parentHash: string;
  timestamp: number;
  txs: TxRecord[];
  journal: Journal | null;
  /** null: a placeholder witness_signature (generated load blocks, where signing would dominate). */
  witnessKey: string | null;
  witnessAddress: string;
}): Block {
  const root = txTrieRoot(args.txs.map((t) => t.id));
  const header = {
    timestamp: args.timestamp,
    txTrieRoot: root,
    parentHash: args.parentHash,
    number: args.number,
    witnessAddress: args.witnessAddress,
  };
  const hash = sha256Bytes(encodeHeaderRaw(header));
  const id = args.number.toString(16).padStart(16, "0") + bytesToHex(hash.subarray(8));
  for (const t of args.txs) t.blockNumber = args.number;
  return {
    number: args.number,
    id,
    parentHash: args.parentHash,
    timestamp: args.timestamp,
    txTrieRoot: root,
    witnessAddress: args.witnessAddress,
    witnessSignature: args.witnessKey
      ? signDigest(hash, args.witnessKey)
      : bytesToHex(hash) + bytesToHex(hash) + "1b",
    txs: args.txs,
    journal: args.journal,
  };
}

/** ref_block_hash as TronWeb derives it: bytes 8..16 of the blockID. */
export function refBlockHash(blockId: string): string {
  return blockId.slice(16, 32);
}

export function refBlockBytes(num: number): string {
  return (num & 0xffff).toString(16).padStart(4, "0");
}
