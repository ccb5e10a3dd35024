/**
 * EVM addresses: the format (stored lowercase 0x hex, shown EIP-55 checksummed, a mixed-case
 * address accepted only with a correct checksum) and deposit-address derivation from the
 * account-level xpub (m/44'/60'/0'; the pool at /0/i, static deposit addresses at /1/i).
 *
 * Derivation is public only: the branch's extended public key is derived once per xpub and kept,
 * then each index costs one child derivation (a point multiplication) and a keccak. A batch yields
 * to the event loop between small chunks, so a pool refill never holds requests up.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { HDKey } from "@scure/bip32";
import { computeAddress, getAddress } from "ethers";
import type { AddressDerivation, AddressFormat, DerivationBranch } from "../chain.js";

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export const evmAddressFormat: AddressFormat = {
  isValid(address) {
    return normalise(address) !== undefined;
  },
  normalise,
  display(stored) {
    return getAddress(stored);
  },
};

function normalise(address: string): string | undefined {
  if (!HEX_ADDRESS.test(address)) return undefined;
  const body = address.slice(2);
  // All lowercase or all uppercase carries no checksum; mixed case must be a correct EIP-55 one.
  if (body !== body.toLowerCase() && body !== body.toUpperCase()) {
    try {
      if (getAddress(address) !== address) return undefined;
    } catch {
      return undefined;
    }
  }
  return address.toLowerCase();
}

/** Branch keys per xpub: deriving the branch costs as much as an address. */
const branchKeys = new Map<string, HDKey>();

function branchKey(xpub: string, branch: DerivationBranch): HDKey {
  const key = `${xpub}/${branch}`;
  let found = branchKeys.get(key);
  if (!found) {
    const account = HDKey.fromExtendedKey(xpub);
    if (account.depth !== 3) throw new Error("the EVM xpub is not at the account level (m/44'/60'/0')");
    found = account.deriveChild(branch);
    if (branchKeys.size > 16) branchKeys.clear();
    branchKeys.set(key, found);
  }
  return found;
}

function addressAt(parent: HDKey, index: number): string {
  const publicKey = parent.deriveChild(index).publicKey;
  if (!publicKey) throw new Error("derivation gave no public key");
  return computeAddress("0x" + Buffer.from(publicKey).toString("hex")).toLowerCase();
}

/** Addresses derived per turn of the event loop. */
const DERIVE_CHUNK = 32;

export const evmDerivation: AddressDerivation = {
  deriveAddress(xpub, index, branch) {
    return addressAt(branchKey(xpub, branch), index);
  },
  async deriveAddresses(xpub, from, count, branch = 0) {
    const parent = branchKey(xpub, branch);
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      if (i > 0 && i % DERIVE_CHUNK === 0) await yieldToEventLoop();
      out.push(addressAt(parent, from + i));
    }
    return out;
  },
  backend: () => ({ backend: "noble", reason: "public derivation with @scure/bip32 in yielding chunks" }),
};
