/**
 * TRON behind the chain boundary (../chain.ts): blocks read one at a time from the java-tron nodes
 * of TRON_NODE_URL (fetch-blocks.ts, with failover: node-pool.ts), USDT Transfer logs read from
 * their transaction infos (extract-transfers.ts), and the solidified head as the final chain (only
 * solidified blocks are final on TRON).
 */
import { deriveAddress } from "@stablegate/tron/hd";
import type { BlockJson } from "@stablegate/tron/node-types";
import type { NodeClient } from "@stablegate/tron/node-client";
import { retryNode } from "../backoff.js";
import type {
  CallOptions,
  Chain,
  ChainHead,
  Faucet,
  ReadBlock,
  TokenConfig,
  TokenTransfer,
} from "../chain.js";
import type { Currency } from "../chain-types.js";
import { deriveAddressesOffThread } from "./address-deriver.js";
import { Base58Cache, tronAddressFormat } from "./address-format.js";
import type { ChainAccess } from "./chain-access.js";
import { extractUsdtTransfers, readHeader, type CandidateTransfer } from "./extract-transfers.js";
import { sendFaucetUsdt } from "./faucet-transfer.js";
import { fetchBlocks } from "./fetch-blocks.js";
import { poolDerivationBackend } from "./pool-derivation.js";

/** TRC20 USDT's decimals. */
const USDT_DECIMALS = 6;

/** The head and the node that gave it: a range ending at the head reads that block from that node. */
class TronHead implements ChainHead {
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;

  constructor(
    readonly block: BlockJson,
    readonly node: NodeClient,
  ) {
    const header = readHeader(block);
    this.number = header.number;
    this.hash = header.hash;
    this.parentHash = header.parentHash;
    this.timestamp = header.timestamp;
  }
}

/** A transfer read from a log: the payer's base58 is worked out only when someone reads it. */
class TronTransfer implements TokenTransfer {
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: number;
  readonly blockHash: string;
  readonly blockTimestamp: number;
  readonly currency: Currency = "USDT";
  readonly to: string;
  readonly units: bigint;
  readonly decimals = USDT_DECIMALS;

  constructor(
    candidate: CandidateTransfer,
    private readonly fromEvm: string,
    private readonly base58: Base58Cache,
  ) {
    this.txHash = candidate.txHash;
    this.logIndex = candidate.logIndex;
    this.blockNumber = candidate.blockNumber;
    this.blockHash = candidate.blockHash;
    this.blockTimestamp = candidate.blockTimestamp;
    this.to = base58.of(candidate.toEvm);
    this.units = candidate.amount;
  }

  get from(): string {
    return this.base58.of(this.fromEvm);
  }
}

const retrying = <T>(fn: () => Promise<T>, options: CallOptions, what: string) =>
  retryNode(fn, { ...options.retry, signal: options.signal, log: options.log, what });

export function createTronChain(access: ChainAccess): Chain {
  const base58 = new Base58Cache();
  const tokens: TokenConfig[] = access.usdtContract
    ? [{ currency: "USDT", contract: access.usdtContract, decimals: USDT_DECIMALS }]
    : [];
  const usdtContract = access.usdtContract;
  const faucet: Faucet | undefined =
    access.network === "devnet"
      ? {
          async pay(to, currency, micro) {
            if (currency !== "USDT" || !usdtContract) throw new Error(`the devnet has no ${currency} token`);
            return sendFaucetUsdt(access.client, { usdtContract, to, amount: micro });
          },
        }
      : undefined;

  return {
    id: "tron",
    family: "tron",
    network: access.network,
    // TRON takes USDT only: its contract is configured, or deployed by the devnet at start.
    currencies: ["USDT"],
    tokens,
    loadTokens: () => Promise.resolve(tokens),
    address: tronAddressFormat,
    derivation: {
      deriveAddress: (xpub, index, branch) => deriveAddress(xpub, index, branch),
      deriveAddresses: (xpub, from, count, branch = 0) => deriveAddressesOffThread(xpub, from, count, branch),
      backend: () => poolDerivationBackend(),
    },
    faucet,

    async head(options) {
      let node = access.client.select();
      const block = await retrying(() => (node = access.client.select()).getNowBlock(), options, "head");
      return new TronHead(block, node);
    },

    async headNumber() {
      const block = await access.client.getNowBlock();
      return block.block_header.raw_data.number ?? 0;
    },

    readBlocks(from, to, options) {
      const usdtEvm = access.usdtEvm;
      if (!usdtEvm) throw new Error("USDT_CONTRACT is not configured");
      const head = options.head instanceof TronHead ? options.head : undefined;
      const blocks = fetchBlocks(from, to, {
        select: () => access.client.select(),
        usdtEvm,
        log: options.log,
        signal: options.signal,
        concurrency: options.concurrency,
        retry: options.retry,
        known: head && head.number === to ? { block: head.block, node: head.node } : undefined,
      });
      return blocks.map((block) => {
        const read = block.then(({ header, transfers }): ReadBlock => ({
          header: {
            number: header.number,
            hash: header.hash,
            parentHash: header.parentHash,
            timestamp: header.timestamp,
          },
          transfers: transfers.map((c) => new TronTransfer(c, c.fromEvm, base58)),
        }));
        // The consumer may stop early (a fork, an error); later failures must not be unhandled.
        read.catch(() => undefined);
        return read;
      });
    },

    async blockHash(n, options) {
      const block = await retrying(() => access.client.getBlockByNum(n), options, `block ${n}`);
      return block ? block.blockID.toLowerCase() : undefined;
    },

    async finalHead(options) {
      const head = await retrying(() => access.client.getSolidifiedNowBlock(), options, "solidified head");
      return { number: head.block_header.raw_data.number ?? 0, hash: head.blockID.toLowerCase() };
    },

    async finalBlockHash(n, options) {
      const header = await retrying(
        () => access.client.getBlockHeader(n, { solidified: true }),
        options,
        `solidified block ${n}`,
      );
      return header ? header.blockID.toLowerCase() : undefined;
    },

    async transactionStatus(txHash) {
      const info = await access.client.getTransactionInfoById(txHash);
      if (!info) return { state: "unknown" };
      const solid = await access.client.getTransactionInfoById(txHash, { solidified: true });
      const receipt = info.receipt.result;
      return {
        state: "included",
        blockNumber: info.blockNumber,
        success: info.result !== "FAILED" && (receipt === undefined || receipt === "SUCCESS"),
        final: solid !== null,
      };
    },

    async finalTransfers(txHash) {
      const usdtEvm = access.usdtEvm;
      if (!usdtEvm) throw new Error("USDT_CONTRACT is not configured");
      const info = await access.client.getTransactionInfoById(txHash, { solidified: true });
      if (!info) return undefined;
      const header = {
        number: info.blockNumber,
        hash: "",
        parentHash: "",
        timestamp: info.blockTimeStamp,
        txIds: undefined,
        mayHaveLogs: true,
      };
      return extractUsdtTransfers(header, [info], usdtEvm).map((c) => new TronTransfer(c, c.fromEvm, base58));
    },

    // TRON wallets scan the bare address; the page shows the amount beside it.
    paymentUri: (_currency, to) => Promise.resolve(to),
    observeHead: (number, at) => access.observeHead(number, at),
    lastHead: () => access.lastHead(),
    // The solidified head is TRON's own signal: there is nothing to fall back to.
    finalityFallback: () => false,
    nodes: () => access.client.status(),
    degraded: () => access.client.degraded(),
    close: () => access.close(),
  };
}
