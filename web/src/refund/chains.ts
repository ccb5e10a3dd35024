/**
 * How the claim page names a refund's chain and its address format (DESIGN.md 16): the payer is
 * asked for an address on the chain the refund is paid on. The server checks the address (checksum
 * included); the format here only hints while the payer types.
 */
import type { RefundClaimView } from "./api.js";

export interface ChainText {
  /** The chain as people call it. */
  name: string;
  /** The token standard wallets show beside the token. */
  standard: string;
  placeholder: string;
  /** What a well-formed address looks like, in words. */
  hint: string;
  looksLike: (value: string) => boolean;
}

const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const evm = (name: string, standard: string): ChainText => ({
  name,
  standard,
  placeholder: "0x…",
  hint: `An ${name} address starts with 0x and has 40 letters (a-f) and digits after it.`,
  looksLike: (value) => EVM_ADDRESS.test(value),
});

export const CHAIN_TEXT: Readonly<Record<RefundClaimView["chain"], ChainText>> = {
  tron: {
    name: "TRON",
    standard: "TRC20",
    placeholder: "T…",
    hint: "A TRON address starts with T and has 34 letters and digits (no 0, O, I or l).",
    looksLike: (value) => TRON_ADDRESS.test(value),
  },
  ethereum: evm("Ethereum", "ERC-20"),
  bsc: evm("BNB Smart Chain", "BEP-20"),
  polygon: evm("Polygon", "ERC-20"),
  arbitrum: evm("Arbitrum", "ERC-20"),
  base: evm("Base", "ERC-20"),
};

/** "Your TRON address (USDT, TRC20)": the address field's label. */
export function addressFieldLabel(claim: Pick<RefundClaimView, "chain" | "currency">): string {
  const text = CHAIN_TEXT[claim.chain];
  return `Your ${text.name} address (${claim.currency}, ${text.standard})`;
}
