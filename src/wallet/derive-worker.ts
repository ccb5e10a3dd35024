/**
 * The worker thread of src/wallet/address-deriver.ts: derives deposit addresses from the xpub (a
 * point multiplication each) off the process's event loop. Public data only: no key ever reaches it.
 */
import { parentPort } from "node:worker_threads";
import { deriveAddresses, type Branch } from "@stablegate/tron/hd";

export interface DeriveRequest {
  id: number;
  xpub: string;
  from: number;
  count: number;
  branch: Branch;
}

export type DeriveReply =
  { ready: true } | { id: number; addresses: string[] } | { id: number; error: string };

parentPort?.on("message", (request: DeriveRequest) => {
  let reply: DeriveReply;
  try {
    reply = {
      id: request.id,
      addresses: deriveAddresses(request.xpub, request.from, request.count, request.branch),
    };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});

// Posted once this module and its imports have loaded: the parent counts the worker usable from here.
parentPort?.postMessage({ ready: true } satisfies DeriveReply);
