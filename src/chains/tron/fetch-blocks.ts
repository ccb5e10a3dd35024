/**
 * Fetches a range of blocks for the scanner: each block's header without its transactions
 * (getblock detail=false) and its transaction infos (gettransactioninfobyblocknum, skipped for a
 * block without transactions), both from the same node, several blocks in flight. Results come back as one promise per block, in
 * order, so the scanner applies them in chain order while later ones are still arriving.
 */
import type { Logger } from "../../logger.js";
import type { NodeClient } from "@stablegate/tron/node-client";
import type { BlockJson } from "@stablegate/tron/node-types";
import { Limiter, retryNode, type RetryTiming } from "../backoff.js";
import { InconsistentBlockError } from "../chain.js";
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

export { InconsistentBlockError };

export interface FetchOptions {
  /** The node for one block's calls (a pool's select()): header and infos come from the same node. */
  select: () => NodeClient;
  usdtEvm: string;
  log: Logger;
  signal: AbortSignal;
  /** Blocks in flight (each one call at a time). */
  concurrency: number;
  retry?: RetryTiming | undefined;
  /** A block already in hand (the head from getnowblock) and the node that gave it. */
  known?: { block: BlockJson; node: NodeClient } | undefined;
}

export function fetchBlocks(from: number, to: number, options: FetchOptions): Promise<FetchedBlock>[] {
  const { log, signal } = options;
  // One queue for every block, in block order: early blocks go first.
  const limiter = new Limiter(options.concurrency);
  const known = options.known && { header: readHeader(options.known.block), node: options.known.node };

  // Block n from one node: the header, then the infos. A failed infos call is retried on the same
  // node while the pool still selects it; once the pool has moved on, the header is fetched again
  // from the node selected then, so a header is never paired with another node's infos.
  const fetchBlock = (n: number): Promise<FetchedBlock> => {
    let got: { node: NodeClient; header: BlockHeaderInfo } | undefined =
      known && known.header.number === n ? known : undefined;
    const attempt = async (): Promise<FetchedBlock> => {
      const node = options.select();
      if (!got || got.node !== node) {
        const block = await node.getBlockHeader(n);
        if (!block) throw new InconsistentBlockError(`the node has no block ${n}`);
        const header = readHeaderOnly(block);
        if (header.number !== n)
          throw new InconsistentBlockError(`asked for block ${n}, got ${header.number}`);
        got = { node, header };
      }
      const h = got.header;
      if (!h.mayHaveLogs) return { header: h, transfers: [] };
      const infos = await node.getTransactionInfoByBlockNum(n);
      if (!infosMatchBlock(h, infos)) {
        throw new InconsistentBlockError(`transaction infos of block ${n} do not match its header`);
      }
      return { header: h, transfers: extractUsdtTransfers(h, infos, options.usdtEvm) };
    };
    return limiter.run(
      () => retryNode(attempt, { ...options.retry, signal, log, what: `block ${n}` }),
      signal,
    );
  };

  const out: Promise<FetchedBlock>[] = [];
  for (let n = from; n <= to; n++) {
    const block = fetchBlock(n);
    // The consumer may stop early (a fork, an error); later failures must not be unhandled.
    block.catch(() => undefined);
    out.push(block);
  }
  return out;
}
