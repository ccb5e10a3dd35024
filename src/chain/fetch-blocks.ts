/**
 * Fetches a range of blocks for the scanner: each block's header without its transactions
 * (getblock detail=false) and its transaction infos (gettransactioninfobyblocknum, skipped for a
 * block without transactions), several calls in flight. Results come back as one promise per block, in
 * order, so the scanner applies them in chain order while later ones are still arriving.
 */
import type { Logger } from "../logger.js";
import type { NodeClient } from "../tron/node-client.js";
import type { BlockJson } from "../tron/node-types.js";
import { Limiter, retryNode, type RetryTiming } from "./backoff.js";
import {
  extractUsdtTransfers,
  infosMatchBlock,
  readHeader,
  readHeaderOnly,
  type BlockHeaderInfo,
  type CandidateTransfer,
} from "./extract-transfers.js";

export interface FetchedBlock {
  header: BlockHeaderInfo;
  transfers: CandidateTransfer[];
}

/** The node's answers for one block disagree (it reorganised between two calls): fetch again. */
export class InconsistentBlockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InconsistentBlockError";
  }
}

export interface FetchOptions {
  client: NodeClient;
  usdtEvm: string;
  log: Logger;
  signal: AbortSignal;
  /** Calls in flight. */
  concurrency: number;
  retry?: RetryTiming | undefined;
  /** A block already in hand (the head from getnowblock), saving its header call. */
  known?: BlockJson | undefined;
}

export function fetchBlocks(from: number, to: number, options: FetchOptions): Promise<FetchedBlock>[] {
  const { client, log, signal } = options;
  // One queue for every call, in block order: headers and infos of early blocks go first.
  const limiter = new Limiter(options.concurrency);
  const known = options.known ? readHeader(options.known) : undefined;
  const call = <T>(what: string, fn: () => Promise<T>) =>
    limiter.run(() => retryNode(fn, { ...options.retry, signal, log, what }), signal);

  const out: Promise<FetchedBlock>[] = [];
  for (let n = from; n <= to; n++) {
    const header: Promise<BlockHeaderInfo> =
      known && known.number === n
        ? Promise.resolve(known)
        : call(`header of block ${n}`, () => client.getBlockHeader(n)).then((block) => {
            if (!block) throw new InconsistentBlockError(`the node has no block ${n}`);
            const h = readHeaderOnly(block);
            if (h.number !== n) throw new InconsistentBlockError(`asked for block ${n}, got ${h.number}`);
            return h;
          });
    const block = header.then(async (h) => {
      if (!h.mayHaveLogs) return { header: h, transfers: [] };
      const infos = await call(`transaction infos of block ${n}`, () =>
        client.getTransactionInfoByBlockNum(n),
      );
      if (!infosMatchBlock(h, infos)) {
        throw new InconsistentBlockError(`transaction infos of block ${n} do not match its header`);
      }
      return { header: h, transfers: extractUsdtTransfers(h, infos, options.usdtEvm) };
    });
    // The consumer may stop early (a fork, an error); later failures must not be unhandled.
    block.catch(() => undefined);
    out.push(block);
  }
  return out;
}
