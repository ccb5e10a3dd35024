// What every java-tron API handler of the devnet shares: the request context, the handler shape, and
// java-tron's ways of reading parameters and reporting errors.
import { isHexAddress, isValidAddress, toHex } from "@stablegate/tron/address";
import type { Chain } from "./chain.js";
import { utf8ToHex } from "./util.js";

export type Params = Record<string, unknown>;
export type Reply = unknown;
export interface Ctx {
  chain: Chain;
  /** true under /walletsolidity: only the solidified chain is visible. */
  solid: boolean;
  visible: boolean;
}
export type Handler = (p: Params, ctx: Ctx) => Reply;

export function num(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === "string" && /^-?\d+$/.test(v)) return Number(v);
  return undefined;
}

/** java-tron's Util.processError shape. */
export function javaError(cls: string, message: string): Reply {
  return { Error: `class ${cls} : ${message}` };
}

/** A base58 or 41-hex address as '41…' hex; null when it is neither. */
export function addressParam(v: unknown): string | null {
  if (typeof v !== "string") return null;
  if (isValidAddress(v)) return toHex(v);
  if (isHexAddress(v)) return toHex(v);
  return null;
}

export function returnMessage(msg: string, visible: boolean): string {
  // java-tron prints Return.message as hex, except in visible mode where it is readable text.
  return visible ? msg : utf8ToHex(msg);
}
