/**
 * The form of an address shown to people and integrations (replies, webhooks, the console): the
 * family's display form (chain.ts, AddressFormat.display): TRON's base58 as stored, an EVM address
 * EIP-55 checksummed (stored lowercase). Pure: it needs no enabled chain, so a row of a chain
 * disabled since is still shown right.
 */
import type { AddressFormat } from "./chain.js";
import { FAMILY_OF, isChainId, type ChainFamilyName } from "./chain-types.js";
import { evmAddressFormat } from "./evm/address.js";

const FORMATS: Partial<Record<ChainFamilyName, AddressFormat>> = { evm: evmAddressFormat };

export function displayAddress(chain: string, stored: string): string;
export function displayAddress(chain: string, stored: string | null): string | null;
export function displayAddress(chain: string, stored: string | null): string | null {
  if (stored === null || !isChainId(chain)) return stored;
  const format = FORMATS[FAMILY_OF[chain]];
  if (!format) return stored;
  try {
    return format.display(stored);
  } catch {
    return stored;
  }
}
