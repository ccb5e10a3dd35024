/**
 * An EVM network behind the chain boundary (../chain.ts): Transfer logs of the enabled tokens read
 * over block ranges with headers for continuity (read-range.ts), from the endpoints of
 * <CHAIN>_RPC_URL with failover (rpc-pool.ts). The final chain is the `finalized` block tag, or,
 * where the chain counts N confirmations, the block head - N + 1 (a block with N - 1 blocks on top
 * of it). Token decimals are read from each contract (`decimals()`) before the first read, never
 * assumed.
 */
import { systemClock, type Clock } from "../../clock.js";
import { retryNode } from "../backoff.js";
import type {
  BlockRef,
  CallOptions,
  Chain,
  ChainHead,
  HeadObservation,
  TokenConfig,
  TokenTransfer,
} from "../chain.js";
import type { ChainId, Currency } from "../chain-types.js";
import { evmAddressFormat, evmDerivation } from "./address.js";
import { evmFaucet } from "./faucet.js";
import { evmNonceSending } from "./nonce-sending.js";
import { eip681TransferUri } from "./payment-uri.js";
import {
  contractsOf,
  decodeTransfer,
  headerOf,
  RangeLimit,
  readRange,
  type RpcBlock,
  type RpcLog,
} from "./read-range.js";
import type { RpcClient } from "./rpc-client.js";
import type { RpcPool } from "./rpc-pool.js";

/** `finalized`: the node's tag; a number: that many confirmations (the block itself counts as one). */
export type EvmFinality = "finalized" | number;

export interface EvmChainOptions {
  id: ChainId;
  network: string;
  rpc: RpcPool;
  /** The enabled tokens' contracts (stored form); their decimals are read from the chain. */
  contracts: readonly { currency: Currency; contract: string }[];
  finality: EvmFinality;
  /**
   * With `finalized` finality: the confirmations that count as final when the tag stalls (falls
   * further than this behind the head), as BSC's fast finality can; undefined: the tag alone.
   */
  finalityFallback?: number | undefined;
  /** Most blocks per eth_getLogs (default 1000), shrunk when a provider refuses a range. */
  maxRange?: number;
  clock?: Clock;
  /** A devnet's faucet key: the chain then has a faucet (sandbox payments). */
  faucetPrivateKey?: string | undefined;
}

interface RpcReceipt {
  status: string;
  blockNumber: string;
  blockHash: string;
  logs: RpcLog[];
}

/** decimals() */
const DECIMALS_CALL = "0x313ce567";

const hex = (n: number) => "0x" + n.toString(16);
const withPrefix = (hash: string) => (hash.startsWith("0x") ? hash : "0x" + hash).toLowerCase();

export interface EvmChain extends Chain {
  /** The range per eth_getLogs now (after any shrinking). */
  rangeSize(): number;
}

export function createEvmChain(options: EvmChainOptions): EvmChain {
  const rpc = options.rpc;
  const clock = options.clock ?? systemClock;
  const limit = new RangeLimit(options.maxRange ?? 1000);
  let tokens: TokenConfig[] = [];
  let loading: Promise<TokenConfig[]> | undefined;
  let head: HeadObservation | undefined;
  /** Whether the last final block read came from the fallback depth (the tag had stalled). */
  let fallingBack = false;
  let chainId: Promise<bigint> | undefined;

  const retrying = <T>(fn: () => Promise<T>, call: CallOptions, what: string) =>
    retryNode(fn, { ...call.retry, signal: call.signal, log: call.log, what });

  async function readDecimals(contract: string): Promise<number> {
    const raw = await rpc.call<string>("eth_call", [{ to: contract, data: DECIMALS_CALL }, "latest"]);
    if (typeof raw !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(raw))
      throw new Error(
        `${options.id}: ${contract} answered decimals() with no number; is it an ERC-20 token?`,
      );
    const decimals = Number(BigInt(raw));
    if (decimals < 6 || decimals > 36)
      throw new Error(`${options.id}: ${contract} has ${decimals} decimals; 6 to 36 are supported`);
    return decimals;
  }

  /** The tokens with their decimals, read once (retried while the endpoints fail, given `call`). */
  function loadTokens(call?: CallOptions): Promise<TokenConfig[]> {
    loading ??= (async () => {
      const read: TokenConfig[] = [];
      for (const c of options.contracts) {
        const decimals = call
          ? await retrying(() => readDecimals(c.contract), call, `${c.currency} decimals`)
          : await readDecimals(c.contract);
        read.push({ currency: c.currency, contract: c.contract, decimals });
      }
      tokens = read;
      return read;
    })();
    loading.catch(() => (loading = undefined));
    return loading;
  }

  async function block(node: RpcClient, tag: string | number): Promise<RpcBlock | null> {
    return node.call<RpcBlock | null>("eth_getBlockByNumber", [
      typeof tag === "number" ? hex(tag) : tag,
      false,
    ]);
  }

  /** One attempt at the final block. */
  async function finalRef(node: RpcClient): Promise<BlockRef> {
    if (options.finality !== "finalized") return confirmed(node, options.finality);
    const b = await block(node, "finalized");
    const tagged = b ? headerOf(b) : { number: -1, hash: "" };
    const depth = options.finalityFallback;
    if (depth === undefined) return { number: tagged.number, hash: tagged.hash };
    // The tag stalled further behind than the fallback depth: that depth is final enough.
    const deep = await confirmed(node, depth);
    fallingBack = deep.number > tagged.number;
    return fallingBack ? deep : { number: tagged.number, hash: tagged.hash };
  }

  /** One attempt at the block with `confirmations` blocks counting it among them. */
  async function confirmed(node: RpcClient, confirmations: number): Promise<BlockRef> {
    const latest = Number(BigInt(await node.call<string>("eth_blockNumber", [])));
    const n = latest - confirmations + 1;
    if (n < 0) return { number: -1, hash: "" };
    const b = await block(node, n);
    if (!b) throw new Error(`${options.id}: the node has no block ${n} below its head ${latest}`);
    return { number: n, hash: headerOf(b).hash };
  }

  async function transfersOf(receipt: RpcReceipt): Promise<TokenTransfer[]> {
    if (receipt.status !== "0x1") return [];
    const byContract = contractsOf(tokens);
    const b = await block(rpc, Number(BigInt(receipt.blockNumber)));
    const timestamp = b ? headerOf(b).timestamp : 0;
    return receipt.logs
      .map((l) => decodeTransfer(l, byContract, timestamp))
      .filter((t): t is TokenTransfer => t !== undefined);
  }

  return {
    id: options.id,
    family: "evm",
    network: options.network,
    get tokens() {
      return tokens;
    },
    loadTokens: () => loadTokens(),
    currencies: [...new Set(options.contracts.map((c) => c.currency))],
    address: evmAddressFormat,
    derivation: evmDerivation,
    faucet: options.faucetPrivateKey
      ? evmFaucet(options.faucetPrivateKey, rpc, async (currency) =>
          (await loadTokens()).find((t) => t.currency === currency),
        )
      : undefined,
    nonces: evmNonceSending(rpc),
    rangeSize: () => limit.size,

    async head(call): Promise<ChainHead> {
      const b = await retrying(() => block(rpc, "latest"), call, "head");
      if (!b) throw new Error(`${options.id}: the node has no latest block`);
      return headerOf(b);
    },

    async headNumber() {
      return Number(BigInt(await rpc.call<string>("eth_blockNumber", [])));
    },

    readBlocks(from, to, call) {
      const ready = loadTokens(call);
      const pending = ready.then((loaded) =>
        readRange(from, to, {
          select: () => rpc.select(),
          tokens: loaded,
          limit,
          log: call.log,
          signal: call.signal,
          concurrency: call.concurrency,
          retry: call.retry,
        }),
      );
      const out = [];
      for (let n = from; n <= to; n++) {
        const read = pending.then((blocks) => blocks[n - from] as (typeof blocks)[number]);
        // The consumer may stop early (a fork, an error); later failures must not be unhandled.
        read.catch(() => undefined);
        out.push(read);
      }
      return out;
    },

    async blockHash(n, call) {
      const b = await retrying(() => block(rpc, n), call, `block ${n}`);
      return b ? headerOf(b).hash : undefined;
    },

    finalHead: (call) => retrying(() => finalRef(rpc.select()), call, "final head"),

    async finalBlockHash(n, call) {
      return retrying(
        async () => {
          const node = rpc.select();
          const final = await finalRef(node);
          if (n > final.number) return undefined;
          if (n === final.number) return final.hash;
          const b = await block(node, n);
          return b ? headerOf(b).hash : undefined;
        },
        call,
        `final block ${n}`,
      );
    },

    async transactionStatus(txHash) {
      const node = rpc.select();
      const receipt = await node.call<RpcReceipt | null>("eth_getTransactionReceipt", [withPrefix(txHash)]);
      if (!receipt) return { state: "unknown" };
      const blockNumber = Number(BigInt(receipt.blockNumber));
      const final = await finalRef(node);
      return {
        state: "included",
        blockNumber,
        success: receipt.status === "0x1",
        final: blockNumber <= final.number,
      };
    },

    async finalTransfers(txHash) {
      const node = rpc.select();
      const receipt = await node.call<RpcReceipt | null>("eth_getTransactionReceipt", [withPrefix(txHash)]);
      if (!receipt) return undefined;
      const final = await finalRef(node);
      if (Number(BigInt(receipt.blockNumber)) > final.number) return undefined;
      await loadTokens();
      return transfersOf(receipt);
    },

    async paymentUri(currency, to, micro) {
      const token = (await loadTokens()).find((t) => t.currency === currency);
      if (!token) throw new Error(`${options.id} has no ${currency} token`);
      chainId ??= rpc.call<string>("eth_chainId", []).then(BigInt);
      chainId.catch(() => (chainId = undefined));
      return eip681TransferUri(token, await chainId, to, micro);
    },

    observeHead(number, at = clock.now().getTime()) {
      if (!head || at >= head.at) head = { number, at };
    },
    lastHead: () => head,
    finalityFallback: () => fallingBack,
    nodes: () => rpc.status(),
    degraded: () => rpc.degraded(),
    close: () => rpc.close(),
  };
}
