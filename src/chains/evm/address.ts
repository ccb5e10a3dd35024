/**
 * EVM addresses: the format (stored lowercase 0x hex, shown EIP-55 checksummed, a mixed-case
 * address accepted only with a correct checksum) and deposit-address derivation from the
 * account-level xpub (m/44'/60'/0'; the pool at /0/i, static deposit addresses at /1/i).
 *
 * Derivation is public only: the branch's extended public key is derived once per xpub and kept,
 * then each index costs one child derivation (BIP32: an HMAC, then parent + IL·G) and a keccak. The
 * point arithmetic runs on libsecp256k1 (the registry's `secp256k1` package, prebuilt, as TRON's
 * pool derivation uses) where it loads and reproduces @scure/bip32's answer, about a tenth of the
 * pure-JavaScript cost; @scure/bip32 otherwise. A batch yields to the event loop between small
 * chunks, so a pool refill never holds requests up. The binding gets public keys and HMAC outputs
 * of the xpub's chain code only, never a private key.
 */
import { createHmac } from "node:crypto";
import { createRequire } from "node:module";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { HDKey } from "@scure/bip32";
import { computeAddress, getAddress, keccak256 } from "ethers";
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
  rule: "0x and 40 hex digits; mixed case must be a correct EIP-55 checksum",
  fromPrivateKey: (key) => computeAddress("0x" + key.replace(/^0x/, "")).toLowerCase(),
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

interface NativeSecp256k1 {
  publicKeyTweakAdd(pubkey: Uint8Array, tweak: Uint8Array, compressed: boolean): Uint8Array;
}

function scureAddressAt(parent: HDKey, index: number): string {
  const publicKey = parent.deriveChild(index).publicKey;
  if (!publicKey) throw new Error("derivation gave no public key");
  return computeAddress("0x" + Buffer.from(publicKey).toString("hex")).toLowerCase();
}

/** BIP32 public child derivation with libsecp256k1's point addition (non-hardened indexes). */
function nativeAddressAt(binding: NativeSecp256k1, parent: HDKey, index: number): string {
  if (!parent.publicKey || !parent.chainCode) throw new Error("the branch key has no public key");
  const data = Buffer.alloc(37);
  data.set(parent.publicKey, 0);
  data.writeUInt32BE(index, 33);
  const il = createHmac("sha512", parent.chainCode).update(data).digest().subarray(0, 32);
  // Throws for the (astronomically rare) invalid tweak: the caller falls back to @scure/bip32.
  const child = binding.publicKeyTweakAdd(parent.publicKey, il, false);
  return "0x" + keccak256(child.subarray(1)).slice(-40);
}

let native: NativeSecp256k1 | null | undefined;
let nativeReason: string | undefined;

function loadNative(): NativeSecp256k1 | null {
  if (native !== undefined) return native;
  try {
    const binding = createRequire(import.meta.url)("secp256k1/bindings.js") as NativeSecp256k1;
    // Known answer: the binding is used only where it derives what @scure/bip32 derives.
    const check = HDKey.fromMasterSeed(new Uint8Array(32).fill(1)).deriveChild(0);
    native = nativeAddressAt(binding, check, 7) === scureAddressAt(check, 7) ? binding : null;
    if (!native) nativeReason = "the native secp256k1 binding gave a wrong known answer";
  } catch (error) {
    native = null;
    nativeReason = `the native secp256k1 binding failed: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}`;
  }
  return native;
}

function addressAt(parent: HDKey, index: number): string {
  const binding = loadNative();
  if (binding && index < 0x80000000) {
    try {
      return nativeAddressAt(binding, parent, index);
    } catch {
      // An invalid child (IL >= n or the point at infinity): BIP32's rule is applied by @scure/bip32.
    }
  }
  return scureAddressAt(parent, index);
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
  backend: () =>
    loadNative() ? { backend: "libsecp256k1" } : { backend: "noble", reason: nativeReason ?? "not loaded" },
};
