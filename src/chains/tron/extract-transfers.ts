/**
 * Pure reading of java-tron blocks and transaction infos: the block header the scanner links, and the
 * USDT Transfer logs that could be payments. Runs on every log of every block, so it works on the raw
 * hex; base58 (which costs microseconds per address) is left to the caller for what survives.
 */
import { TRANSFER_TOPIC } from "@stablegate/tron/abi";
import type { BlockJson, TransactionInfo } from "@stablegate/tron/node-types";

export interface BlockHeaderInfo {
  number: number;
  hash: string;
  parentHash: string;
  /** Unix ms */
  timestamp: number;
  /** txIDs in block order; undefined when only the header was fetched */
  txIds: string[] | undefined;
  /** false when no transaction can run the TVM, so the block cannot hold a TRC20 log. */
  mayHaveLogs: boolean;
}

/** A USDT Transfer log that passed every filter except "is the recipient watched". */
export interface CandidateTransfer {
  txHash: string;
  /** Index of the log within its transaction's log list. */
  logIndex: number;
  blockNumber: number;
  blockHash: string;
  blockTimestamp: number;
  /** 20-byte hex of the payer (the token holder, also for transferFrom) */
  fromEvm: string;
  /** 20-byte hex of the recipient */
  toEvm: string;
  /** micro-USDT */
  amount: bigint;
}

// System contracts that never execute TVM code and so never emit logs. Anything not listed
// (TriggerSmartContract, CreateSmartContract, types added later) is fetched.
const NO_LOG_TYPES = new Set([
  "TransferContract",
  "TransferAssetContract",
  "AccountCreateContract",
  "AccountUpdateContract",
  "AccountPermissionUpdateContract",
  "VoteWitnessContract",
  "WitnessCreateContract",
  "WitnessUpdateContract",
  "WithdrawBalanceContract",
  "FreezeBalanceContract",
  "UnfreezeBalanceContract",
  "FreezeBalanceV2Contract",
  "UnfreezeBalanceV2Contract",
  "WithdrawExpireUnfreezeContract",
  "DelegateResourceContract",
  "UnDelegateResourceContract",
  "CancelAllUnfreezeV2Contract",
]);

const ZERO_WORD = "0".repeat(64);
const ADDRESS_WORD_PAD = "0".repeat(24);

const ZERO_HASH = "0".repeat(64);

/** A header fetched without transactions (getblock detail=false). */
export function readHeaderOnly(block: BlockJson): BlockHeaderInfo {
  const raw = block.block_header.raw_data;
  const root = (raw.txTrieRoot ?? "").toLowerCase();
  return {
    number: raw.number ?? 0,
    hash: block.blockID.toLowerCase(),
    parentHash: raw.parentHash.toLowerCase(),
    timestamp: raw.timestamp ?? 0,
    txIds: undefined,
    // java-tron gives a block without transactions an all-zero txTrieRoot.
    mayHaveLogs: root !== "" && root !== ZERO_HASH,
  };
}

/** A full block (getnowblock, getblockbynum): its transaction list is known. */
export function readHeader(block: BlockJson): BlockHeaderInfo {
  const raw = block.block_header.raw_data;
  const txs = block.transactions ?? [];
  let mayHaveLogs = false;
  const txIds: string[] = [];
  for (const tx of txs) {
    txIds.push(tx.txID.toLowerCase());
    const type = tx.raw_data?.contract?.[0]?.type;
    if (typeof type !== "string" || !NO_LOG_TYPES.has(type)) mayHaveLogs = true;
  }
  return {
    number: raw.number ?? 0,
    hash: block.blockID.toLowerCase(),
    parentHash: raw.parentHash.toLowerCase(),
    timestamp: raw.timestamp ?? 0,
    txIds,
    mayHaveLogs,
  };
}

/**
 * True when the infos belong to this block as the node showed it (it did not reorganise between the
 * two calls): the same transaction ids when the block's transactions are known, else every info
 * carries the block's number and timestamp.
 */
export function infosMatchBlock(header: BlockHeaderInfo, infos: TransactionInfo[]): boolean {
  const ids = header.txIds;
  if (ids === undefined) {
    if (header.mayHaveLogs && infos.length === 0) return false;
    return infos.every((i) => i.blockNumber === header.number && i.blockTimeStamp === header.timestamp);
  }
  if (infos.length !== ids.length) return false;
  for (let i = 0; i < infos.length; i++) {
    if (String(infos[i]?.id).toLowerCase() !== ids[i]) return false;
  }
  return true;
}

function clean(hex: unknown): string {
  if (typeof hex !== "string") return "";
  const h = hex.toLowerCase();
  return h.startsWith("0x") ? h.slice(2) : h;
}

/**
 * The Transfer logs of `usdtEvm` in successful transactions, with a value above zero. A transfer made
 * by transferFrom (or by any contract calling the token) emits the same log and is kept the same way.
 */
export function extractUsdtTransfers(
  header: BlockHeaderInfo,
  infos: TransactionInfo[],
  usdtEvm: string,
): CandidateTransfer[] {
  const out: CandidateTransfer[] = [];
  for (const info of infos) {
    const logs = info.log;
    if (!logs || logs.length === 0) continue;
    // Only a SUCCESS receipt counts; java-tron also marks failed transactions result: "FAILED".
    if (info.receipt?.result !== "SUCCESS" || info.result === "FAILED") continue;
    for (let i = 0; i < logs.length; i++) {
      const log = logs[i];
      if (!log) continue;
      let address = clean(log.address);
      if (address.length === 42 && address.startsWith("41")) address = address.slice(2);
      if (address !== usdtEvm) continue;
      const topics = log.topics;
      if (!topics || topics.length !== 3) continue;
      if (clean(topics[0]) !== TRANSFER_TOPIC) continue;
      const data = clean(log.data);
      if (data.length !== 64 || data === ZERO_WORD || !/^[0-9a-f]{64}$/.test(data)) continue;
      const fromWord = clean(topics[1]);
      const toWord = clean(topics[2]);
      if (!isAddressWord(fromWord) || !isAddressWord(toWord)) continue;
      out.push({
        txHash: clean(info.id),
        logIndex: i,
        blockNumber: header.number,
        blockHash: header.hash,
        blockTimestamp: header.timestamp,
        fromEvm: fromWord.slice(24),
        toEvm: toWord.slice(24),
        amount: BigInt(`0x${data}`),
      });
    }
  }
  return out;
}

function isAddressWord(word: string): boolean {
  return word.length === 64 && word.startsWith(ADDRESS_WORD_PAD) && /^[0-9a-f]{64}$/.test(word);
}
