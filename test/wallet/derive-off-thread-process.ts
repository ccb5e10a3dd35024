/**
 * Run by address-deriver.test.ts as a real process under tsx (as `npm start` and `stablegate serve`
 * run the service): derives with the worker thread and prints what it found as one JSON line.
 */
import { isMainThread, threadId } from "node:worker_threads";
import { deriveAddresses, mnemonicToAccountXpub } from "@stablegate/tron/hd";
import {
  deriveAddressesOffThread,
  derivesOffThread,
  stopAddressDeriver,
  workerDerivationBackend,
} from "../../src/wallet/address-deriver.js";

const xpub = mnemonicToAccountXpub(process.argv[2] ?? "");
const [orders, statics] = await Promise.all([
  deriveAddressesOffThread(xpub, 5, 140),
  deriveAddressesOffThread(xpub, 0, 10, 1),
]);
let invalid = "";
try {
  await deriveAddressesOffThread("xpub-not-really", 0, 1);
} catch (error) {
  invalid = error instanceof Error ? error.message : String(error);
}
process.stdout.write(
  `${JSON.stringify({
    offThread: derivesOffThread(),
    workerBackend: workerDerivationBackend(),
    mainThread: isMainThread && threadId === 0,
    ordersEqual: JSON.stringify(orders) === JSON.stringify(deriveAddresses(xpub, 5, 140)),
    staticsEqual: JSON.stringify(statics) === JSON.stringify(deriveAddresses(xpub, 0, 10, 1)),
    invalid,
  })}\n`,
);
await stopAddressDeriver();
