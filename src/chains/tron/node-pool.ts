/**
 * TRON's node failover (DESIGN.md 11): the TRON_NODE_URL list as one NodeClient, through the
 * families' shared pool (../node-pool.ts). `getnowblock` reports a node's head and is the probe.
 */
import { createNodeClient, type NodeClient } from "@stablegate/tron/node-client";
import type { NodeRequestEvent } from "@stablegate/tron/node-client";
import {
  nodeName,
  poolOf as familyPool,
  type NodePoolOptions as SharedPoolOptions,
  type Pool,
  type PoolFamily,
} from "../node-pool.js";

export type { NodeState, NodeStatus } from "../node-pool.js";
export { nodeName };

export interface NodeCallEvent extends NodeRequestEvent {
  node: string;
}

export interface NodePoolOptions extends SharedPoolOptions {
  /** Every HTTP call, with the node's name (metrics). */
  onCall?: (e: NodeCallEvent) => void;
}

export type NodePool = Pool<NodeClient>;

const TRON_NODES: PoolFamily<NodeClient> = {
  headOf: (method, _args, result) => (method === "getNowBlock" ? headNumber(result) : undefined),
  probeHead: (client) => client.getNowBlock(),
  poolProperty(property, raws, active) {
    if (property === "baseUrl") return { value: active.baseUrl };
    if (property === "requestCount") return { value: raws.reduce((sum, c) => sum + c.requestCount, 0) };
    return undefined;
  },
};

export function createNodePool(
  urls: readonly string[],
  clientOptions: { apiKey?: string; timeoutMs?: number } = {},
  options: NodePoolOptions = {},
): NodePool {
  return poolOf(
    urls.map((url) => {
      const name = nodeName(url);
      const onCall = options.onCall;
      const client = createNodeClient({
        baseUrl: url,
        ...clientOptions,
        ...(onCall ? { onRequest: (e: NodeRequestEvent) => onCall({ ...e, node: name }) } : {}),
      });
      return { name, client };
    }),
    options,
  );
}

/** A pool over clients made elsewhere (tests, the unconfigured stand-in). */
export function poolOf(
  nodes: { name: string; client: NodeClient }[],
  options: NodePoolOptions = {},
): NodePool {
  return familyPool(nodes, TRON_NODES, options);
}

function headNumber(block: unknown): number | undefined {
  const n = (block as { block_header?: { raw_data?: { number?: unknown } } } | undefined)?.block_header
    ?.raw_data?.number;
  return typeof n === "number" ? n : undefined;
}
