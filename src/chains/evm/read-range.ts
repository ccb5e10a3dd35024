/**
 * Reads a range of blocks for the scanner from an EVM chain. Per part of the range (at most
 * `maxRange` blocks, settable, shrunk when the provider refuses a range):
 *  - one `eth_getLogs` for the enabled token contracts and the Transfer topic over the part: the
 *    orders being watched never appear in the call, so the calls per range are the same with ten
 *    open orders or ten thousand, and the recipients are matched locally;
 *  - one JSON-RPC batch of `eth_getBlockByNumber(n, false)` for every block of the part (one HTTP
 *    request), so every block has its hash, parent hash and timestamp for the scanner's continuity
 *    check.
 * Both come from the same endpoint, and every log must name the block hash its header has: a node
 * that reorganised between the two calls fails the block with InconsistentBlockError (read again).
 *
 * A Transfer log exists only in a transaction that succeeded (a reverted transaction's logs are
 * discarded by the EVM), so no receipt is read here. Logs with `removed: true` (a node reporting a
 * reorganisation) are ignored; the scanner's parent-hash check rewinds instead. A log is decoded
 * directly: topics[1] the sender, topics[2] the recipient, data the value (an ERC-721 Transfer has
 * a fourth topic and is not a token transfer; a zero value is not a payment).
 */
import type { Logger } from "../../logger.js";
import { Limiter, retryNode, type RetryTiming } from "../backoff.js";
import {
  InconsistentBlockError,
  type BlockHeader,
  type ReadBlock,
  type TokenConfig,
  type TokenTransfer,
} from "../chain.js";
import { EvmRpcError, type RpcClient } from "./rpc-client.js";

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

export interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

/**
 * The largest range per eth_getLogs, learnt per chain: halved below what a provider refused, and
 * doubled back towards the configured size only after GROW_AFTER parts in a row were read whole
 * (so a provider's limit is not probed on every range).
 */
export class RangeLimit {
  private current: number;
  private wholeInRow = 0;

  constructor(readonly max: number) {
    this.current = max;
  }

  get size(): number {
    return this.current;
  }

  /** The provider refused `tried` blocks: ask for at most half of that from now on. */
  refused(tried: number): void {
    this.wholeInRow = 0;
    this.current = Math.max(1, Math.min(this.current, Math.floor(tried / 2)));
  }

  /** A part of `read` blocks was read without a refusal. */
  succeeded(read: number): void {
    if (read < this.current || this.current >= this.max) return;
    this.wholeInRow += 1;
    if (this.wholeInRow >= GROW_AFTER) {
      this.wholeInRow = 0;
      this.current = Math.min(this.max, this.current * 2);
    }
  }
}

const GROW_AFTER = 100;

export interface ReadRangeOptions {
  /** The endpoint for one part's calls (a pool's select()). */
  select: () => RpcClient;
  tokens: readonly TokenConfig[];
  limit: RangeLimit;
  log: Logger;
  signal: AbortSignal;
  /** Parts in flight. */
  concurrency: number;
  retry?: RetryTiming | undefined;
}

const strip0x = (hex: string) => (hex.startsWith("0x") ? hex.slice(2) : hex).toLowerCase();

export function headerOf(block: RpcBlock): BlockHeader {
  return {
    number: Number(BigInt(block.number)),
    hash: strip0x(block.hash),
    parentHash: strip0x(block.parentHash),
    timestamp: Number(BigInt(block.timestamp)) * 1000,
  };
}

/** A watched token's Transfer log as a transfer, or undefined when it is not one we count. */
export function decodeTransfer(
  log: RpcLog,
  byContract: ReadonlyMap<string, TokenConfig>,
  blockTimestamp: number,
): TokenTransfer | undefined {
  if (log.removed) return undefined;
  const token = byContract.get(log.address.toLowerCase());
  if (!token || log.topics.length !== 3 || log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) return undefined;
  if (!/^0x[0-9a-fA-F]{64}$/.test(log.data)) return undefined;
  const units = BigInt(log.data);
  if (units === 0n) return undefined;
  return {
    txHash: log.transactionHash.toLowerCase(),
    logIndex: Number(BigInt(log.logIndex)),
    blockNumber: Number(BigInt(log.blockNumber)),
    blockHash: strip0x(log.blockHash),
    blockTimestamp,
    currency: token.currency,
    from: topicAddress(log.topics[1] as string),
    to: topicAddress(log.topics[2] as string),
    units,
    decimals: token.decimals,
  };
}

function topicAddress(topic: string): string {
  return "0x" + topic.slice(-40).toLowerCase();
}

export function contractsOf(tokens: readonly TokenConfig[]): Map<string, TokenConfig> {
  return new Map(tokens.map((t) => [t.contract.toLowerCase(), t]));
}

const hex = (n: number) => "0x" + n.toString(16);

/** The Transfer logs of the tokens over from..to, the range split while the provider refuses it. */
async function logsOver(
  node: RpcClient,
  from: number,
  to: number,
  tokens: readonly TokenConfig[],
  limit: RangeLimit,
): Promise<RpcLog[]> {
  try {
    const logs = await node.call<RpcLog[]>("eth_getLogs", [
      {
        fromBlock: hex(from),
        toBlock: hex(to),
        address: tokens.map((t) => t.contract),
        topics: [TRANSFER_TOPIC],
      },
    ]);
    if (!Array.isArray(logs)) throw new EvmRpcError("malformed", "eth_getLogs", "the logs are not an array");
    return logs;
  } catch (error) {
    if (!(error instanceof EvmRpcError) || !error.rangeTooLarge || from === to) throw error;
    limit.refused(to - from + 1);
    const mid = from + Math.floor((to - from) / 2);
    const left = await logsOver(node, from, mid, tokens, limit);
    const right = await logsOver(node, mid + 1, to, tokens, limit);
    return left.concat(right);
  }
}

/** Headers of from..to in JSON-RPC batches (split while the provider refuses the batch's size). */
async function headersOver(
  node: RpcClient,
  from: number,
  to: number,
  limit: RangeLimit,
): Promise<RpcBlock[]> {
  const calls = [];
  for (let n = from; n <= to; n++) calls.push({ method: "eth_getBlockByNumber", params: [hex(n), false] });
  try {
    return await node.batch<RpcBlock | null>(calls).then((blocks) =>
      blocks.map((b, i) => {
        if (!b) throw new InconsistentBlockError(`the node has no block ${from + i}`);
        return b;
      }),
    );
  } catch (error) {
    if (!(error instanceof EvmRpcError) || !error.rangeTooLarge || from === to) throw error;
    limit.refused(to - from + 1);
    const mid = from + Math.floor((to - from) / 2);
    return (await headersOver(node, from, mid, limit)).concat(await headersOver(node, mid + 1, to, limit));
  }
}

/** One part: its blocks with their transfers, in order. */
async function readPart(from: number, to: number, options: ReadRangeOptions): Promise<ReadBlock[]> {
  const node = options.select();
  const sizeBefore = options.limit.size;
  const byContract = contractsOf(options.tokens);
  const [logs, blocks] = await Promise.all([
    options.tokens.length > 0 ? logsOver(node, from, to, options.tokens, options.limit) : Promise.resolve([]),
    headersOver(node, from, to, options.limit),
  ]);
  if (options.limit.size === sizeBefore) options.limit.succeeded(to - from + 1);
  const out: ReadBlock[] = blocks.map((b, i) => {
    const header = headerOf(b);
    if (header.number !== from + i)
      throw new InconsistentBlockError(`asked for block ${from + i}, got ${header.number}`);
    return { header, transfers: [] };
  });
  for (const log of logs) {
    if (log.removed) continue;
    const n = Number(BigInt(log.blockNumber));
    const block = out[n - from];
    if (!block) continue;
    if (strip0x(log.blockHash) !== block.header.hash)
      throw new InconsistentBlockError(`a log of block ${n} names another block hash than its header`);
    const transfer = decodeTransfer(log, byContract, block.header.timestamp);
    if (transfer) block.transfers.push(transfer);
  }
  for (const block of out) block.transfers.sort((a, b) => a.logIndex - b.logIndex);
  return out;
}

/** from..to as one promise per block, in order; parts are read `concurrency` at a time. */
export function readRange(from: number, to: number, options: ReadRangeOptions): Promise<ReadBlock>[] {
  const { log, signal } = options;
  const limiter = new Limiter(options.concurrency);
  const out: Promise<ReadBlock>[] = [];
  let start = from;
  while (start <= to) {
    const end = Math.min(to, start + options.limit.size - 1);
    const partFrom = start;
    const part = limiter.run(
      () =>
        retryNode(() => readPart(partFrom, end, options), {
          ...options.retry,
          signal,
          log,
          what: `blocks ${partFrom}..${end}`,
        }),
      signal,
    );
    part.catch(() => undefined);
    for (let n = partFrom; n <= end; n++) {
      const block = part.then((blocks) => blocks[n - partFrom] as ReadBlock);
      // The consumer may stop early (a fork, an error); later failures must not be unhandled.
      block.catch(() => undefined);
      out.push(block);
    }
    start = end + 1;
  }
  return out;
}
