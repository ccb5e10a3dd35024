/**
 * TRON addresses: base58check with the 0x41 prefix (T...), stored and shown as they are written.
 * The scanner reads recipients as 20-byte hex from the logs; base58 costs microseconds per address
 * (a double SHA-256), so the conversion is cached for the addresses a process keeps meeting.
 */
import { addressFromPrivateKey, hexToBase58, isValidAddress } from "@stablegate/tron/address";
import type { AddressFormat } from "../chain.js";

export const tronAddressFormat: AddressFormat = {
  isValid: (address) => isValidAddress(address),
  normalise: (address) => (isValidAddress(address) ? address : undefined),
  display: (stored) => stored,
  rule: "base58check, starting with T",
  fromPrivateKey: (key) => addressFromPrivateKey(key),
};

/** 20-byte hex -> base58, remembering up to 50,000 answers (then starting over). */
export class Base58Cache {
  private readonly known = new Map<string, string>();

  of(evm: string): string {
    let b = this.known.get(evm);
    if (b === undefined) {
      b = hexToBase58(evm);
      if (this.known.size > 50_000) this.known.clear();
      this.known.set(evm, b);
    }
    return b;
  }
}
