/**
 * The chain as the rest of the service sees it: the java-tron nodes of TRON_NODE_URL as one client
 * with failover (node-pool.ts), the watched USDT contract and what was last observed of the head.
 * Creating it never connects: a client's pool dials on the first call, so contexts without a
 * reachable node (tests, api-only processes) are fine.
 */
import { systemClock, type Clock } from "../../clock.js";
import type { Config, TronNetwork } from "../../config.js";
import type { Logger } from "../../logger.js";
import { type NodeClient, TronNodeError } from "@stablegate/tron/node-client";
import { evmHex } from "@stablegate/tron/address";
import type { Metrics } from "../../metrics/metrics.js";
import type { HeadObservation } from "../chain.js";
import { createNodePool, poolOf, type NodePool, type NodePoolOptions } from "./node-pool.js";

export type { HeadObservation };

export interface ChainAccess {
  readonly network: TronNetwork;
  /** Every call goes to the preferred healthy node; select() pins one node for related calls. */
  readonly client: NodePool;
  /** base58; undefined only when no node is configured (a devnet config before the devnet started). */
  readonly usdtContract: string | undefined;
  /** The contract's 20-byte lowercase hex, as java-tron prints log.address. */
  readonly usdtEvm: string | undefined;
  /** The head as last seen by anyone in this process (scanner or health probe). */
  observeHead(number: number, at?: number): void;
  lastHead(): HeadObservation | undefined;
  close(): Promise<void>;
}

export interface ChainAccessOptions {
  /** A single client of the caller's instead of the configured nodes (tests, benchmarks). */
  client?: NodeClient;
  /** Failover tuning (tests shorten the pauses). */
  pool?: NodePoolOptions;
  log?: Logger;
  /** Node calls are counted per node, endpoint and result. */
  metrics?: Metrics;
  /**
   * Stamps head observations; the context's clock (default the system clock). The node pool keeps
   * real time for its pauses and head comparisons: they pace real calls to remote nodes.
   */
  clock?: Clock;
}

export function createChainAccess(config: Config, options: ChainAccessOptions = {}): ChainAccess {
  const metrics = options.metrics;
  const poolOptions: NodePoolOptions = {
    ...(options.log ? { log: options.log } : {}),
    ...(metrics
      ? {
          onCall: (e) =>
            metrics.observeNodeCall("tron", e.node, e.path, e.durationMs, e.errorKind !== undefined),
        }
      : {}),
    ...options.pool,
  };
  const node: NodePool = options.client
    ? poolOf([{ name: "node", client: options.client }], poolOptions)
    : config.tronNodeUrls.length > 0
      ? createNodePool(config.tronNodeUrls, { apiKey: config.tronApiKey }, poolOptions)
      : poolOf([{ name: "none", client: unconfiguredClient() }], poolOptions);
  const clock = options.clock ?? systemClock;
  let head: HeadObservation | undefined;
  return {
    network: config.tronNetwork,
    client: node,
    usdtContract: config.usdtContract,
    usdtEvm: config.usdtContract ? evmHex(config.usdtContract) : undefined,
    observeHead(number, at = clock.now().getTime()) {
      if (!head || at >= head.at) head = { number, at };
    },
    lastHead: () => head,
    close: () => node.close(),
  };
}

/** A client that fails every call as a network error: no node is configured in this process. */
function unconfiguredClient(): NodeClient {
  const fail = (path: string) =>
    Promise.reject(new TronNodeError("network", path, "TRON_NODE_URL is not set"));
  return new Proxy({} as NodeClient, {
    get(_target, property) {
      if (property === "baseUrl") return "";
      if (property === "requestCount") return 0;
      if (property === "close") return () => Promise.resolve();
      if (property === "then") return undefined;
      return () => fail(`/${String(property)}`);
    },
  });
}
