/**
 * The worker thread of src/wallet/address-deriver.ts: derives deposit addresses from the xpub (a
 * point multiplication each, on libsecp256k1 where it loads: pool-derivation.ts) off the process's
 * event loop. Public data only: no key ever reaches it.
 */
import { parentPort } from "node:worker_threads";
import type { Branch } from "@stablegate/tron/hd";
import { derivePoolAddresses, poolDerivationBackend, type PoolDerivationBackend } from "./pool-derivation.js";

export interface DeriveRequest {
  id: number;
  xpub: string;
  from: number;
  count: number;
  branch: Branch;
}

export type DeriveReply =
  | { ready: true; backend: PoolDerivationBackend }
  | { id: number; addresses: string[] }
  | { id: number; error: string };

parentPort?.on("message", (request: DeriveRequest) => {
  let reply: DeriveReply;
  try {
    reply = {
      id: request.id,
      addresses: derivePoolAddresses(request.xpub, request.from, request.count, request.branch),
    };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});

// Posted once this module and its imports have loaded: the parent counts the worker usable from here.
// The thread loads the native binding for itself: it says which implementation it derives with.
parentPort?.postMessage({ ready: true, backend: poolDerivationBackend().backend } satisfies DeriveReply);
