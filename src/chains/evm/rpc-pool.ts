/**
 * An EVM chain's RPC endpoints (<CHAIN>_RPC_URL, comma-separated) as one client with failover,
 * through the families' shared pool (../node-pool.ts): `eth_blockNumber` reports an endpoint's
 * head and is the probe.
 */
import { nodeName, poolOf, type NodePoolOptions, type Pool, type PoolFamily } from "../node-pool.js";
import { createRpcClient, type RpcClient, type RpcRequestEvent } from "./rpc-client.js";

export type RpcPool = Pool<RpcClient>;

export interface RpcPoolOptions extends NodePoolOptions {
  timeoutMs?: number;
  onCall?: (e: RpcRequestEvent & { node: string }) => void;
}

const EVM_NODES: PoolFamily<RpcClient> = {
  headOf(method, args, result) {
    if (method !== "call" || args[0] !== "eth_blockNumber" || typeof result !== "string") return undefined;
    return Number(BigInt(result));
  },
  probeHead: (client) => client.call<string>("eth_blockNumber", []),
  poolProperty(property, raws, active) {
    if (property === "url") return { value: active.url };
    if (property === "requestCount") return { value: raws.reduce((sum, c) => sum + c.requestCount, 0) };
    return undefined;
  },
};

export function createRpcPool(urls: readonly string[], options: RpcPoolOptions = {}): RpcPool {
  if (urls.length === 0) throw new Error("an RPC pool needs at least one URL");
  const onCall = options.onCall;
  return poolOf(
    urls.map((url) => {
      const name = nodeName(url);
      const client = createRpcClient({
        url,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(onCall ? { onRequest: (e: RpcRequestEvent) => onCall({ ...e, node: name }) } : {}),
      });
      return { name, client };
    }),
    EVM_NODES,
    options,
  );
}
