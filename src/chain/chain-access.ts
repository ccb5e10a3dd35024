/**
 * The chain as the rest of the service sees it: one java-tron node client, the watched USDT
 * contract and what was last observed of the head. Creating it never connects: the client's pool
 * dials on the first call, so contexts without a reachable node (tests, api-only processes) are fine.
 */
import type { Config, TronNetwork } from "../config.js";
import { createNodeClient, type NodeClient, TronNodeError } from "../tron/node-client.js";
import { evmHex } from "../tron/address.js";
import type { Metrics } from "../metrics/metrics.js";

export interface HeadObservation {
  number: number;
  /** Local time (ms) of the observation. */
  at: number;
}

export interface ChainAccess {
  readonly network: TronNetwork;
  readonly client: NodeClient;
  /** base58; undefined only when no node is configured (a devnet config before the devnet started). */
  readonly usdtContract: string | undefined;
  /** The contract's 20-byte lowercase hex, as java-tron prints log.address. */
  readonly usdtEvm: string | undefined;
  /** The head as last seen by anyone in this process (scanner or health probe). */
  observeHead(number: number, at?: number): void;
  lastHead(): HeadObservation | undefined;
  close(): Promise<void>;
}

export function createChainAccess(config: Config, client?: NodeClient, metrics?: Metrics): ChainAccess {
  const baseUrl = config.tronNodeUrl;
  const node =
    client ??
    (baseUrl
      ? createNodeClient({
          baseUrl,
          apiKey: config.tronApiKey,
          onRequest: metrics
            ? (event) =>
                metrics.observeNodeCall(baseUrl, event.path, event.durationMs, event.errorKind !== undefined)
            : undefined,
        })
      : unconfiguredClient());
  let head: HeadObservation | undefined;
  return {
    network: config.tronNetwork,
    client: node,
    usdtContract: config.usdtContract,
    usdtEvm: config.usdtContract ? evmHex(config.usdtContract) : undefined,
    observeHead(number, at = Date.now()) {
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
