import { createHmac } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { HDKey } from "@scure/bip32";
import { generateMnemonic as bip39Generate, mnemonicToSeedSync, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { addressFromPublicKey } from "./address.js";

/** SLIP-44 coin type 195 is TRON; the same path TronLink and TronWeb use. */
export const TRON_ACCOUNT_PATH = "m/44'/195'/0'";
const MAX_INDEX = 0x7fffffff;

export function generateMnemonic(strengthBits: 128 | 256 = 256): string {
  return bip39Generate(wordlist, strengthBits);
}

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(normalize(mnemonic), wordlist);
}

function normalize(mnemonic: string): string {
  return mnemonic.normalize("NFKD").trim().split(/\s+/).join(" ");
}

function accountNode(mnemonic: string, passphrase: string): HDKey {
  const m = normalize(mnemonic);
  if (!validateMnemonic(m, wordlist)) throw new Error("invalid mnemonic");
  const seed = mnemonicToSeedSync(m, passphrase);
  try {
    const root = HDKey.fromMasterSeed(seed);
    const account = root.derive(TRON_ACCOUNT_PATH);
    root.wipePrivateData();
    return account;
  } finally {
    seed.fill(0);
  }
}

/** The account-level xpub (m/44'/195'/0'): enough to derive every deposit address, never a key. */
export function mnemonicToAccountXpub(mnemonic: string, passphrase = ""): string {
  const account = accountNode(mnemonic, passphrase);
  const xpub = account.publicExtendedKey;
  account.wipePrivateData();
  return xpub;
}

function checkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX)
    throw new RangeError("invalid address index");
}

/**
 * The BIP44 change level under the account: 0 is the external chain (order addresses), 1 the branch
 * of the static deposit addresses (m/44'/195'/0'/1/i). Two branches never derive the same key.
 */
export type Branch = 0 | 1;
export const ORDER_BRANCH: Branch = 0;
export const STATIC_BRANCH: Branch = 1;

function checkBranch(branch: number): void {
  if (branch !== 0 && branch !== 1) throw new RangeError("invalid branch");
}

/**
 * The private key of m/44'/195'/0'/branch/index. The caller must wipe it (`key.fill(0)`) after
 * signing.
 */
export function derivePrivateKey(
  mnemonic: string,
  index: number,
  passphrase = "",
  branch: Branch = ORDER_BRANCH,
): Uint8Array {
  checkIndex(index);
  checkBranch(branch);
  const account = accountNode(mnemonic, passphrase);
  const chain = account.deriveChild(branch);
  const leaf = chain.deriveChild(index);
  const key = Uint8Array.from(leaf.privateKey as Uint8Array);
  account.wipePrivateData();
  chain.wipePrivateData();
  leaf.wipePrivateData();
  return key;
}

// Deriving a branch node (/0 or /1) costs as much as a leaf; pools derive hundreds of leaves
// from the same xpub, so the chain node is kept per xpub (public data only).
const chainCache = new Map<string, HDKey>();
const CHAIN_CACHE_MAX = 16;

function branchNode(xpub: string, branch: Branch): HDKey {
  checkBranch(branch);
  const cacheKey = `${branch}:${xpub}`;
  const cached = chainCache.get(cacheKey);
  if (cached) return cached;
  let account: HDKey;
  try {
    account = HDKey.fromExtendedKey(xpub);
  } catch {
    throw new Error("invalid xpub");
  }
  if (account.privateKey) throw new Error("expected an xpub, got a private extended key");
  if (account.depth !== 3) throw new Error("expected the account-level xpub (m/44'/195'/0')");
  const chain = account.deriveChild(branch);
  if (chainCache.size >= CHAIN_CACHE_MAX) chainCache.delete(chainCache.keys().next().value as string);
  chainCache.set(cacheKey, chain);
  return chain;
}

/** The base58 address of m/44'/195'/0'/branch/index, from the account xpub alone. */
export function deriveAddress(xpub: string, index: number, branch: Branch = ORDER_BRANCH): string {
  checkIndex(index);
  return addressFromPublicKey(branchNode(xpub, branch).deriveChild(index).publicKey as Uint8Array);
}

let baseReady = false;
/** The generator with an 8-bit window table, built on first use (about 4,000 points, once per process). */
function base(): typeof secp256k1.Point.BASE {
  if (!baseReady) {
    secp256k1.Point.BASE.precompute(8);
    baseReady = true;
  }
  return secp256k1.Point.BASE;
}

/**
 * An optional replacement for the point arithmetic of deriveAddresses: parent + tweak·G as a 65-byte
 * uncompressed public key (04 || x || y), given the parent as a 65-byte uncompressed key and a 32-byte
 * tweak already checked to be in 1 .. n-1. This package stays pure JavaScript; a caller that has a
 * native libsecp256k1 binding can pass its publicKeyTweakAdd(parent, tweak, false), several times
 * faster than @noble/curves. Public data only: no private key reaches it.
 */
export type PublicKeyTweakAdd = (parent: Uint8Array, tweak: Uint8Array) => Uint8Array;

// The branch node's point and its 65-byte form, parsed once per cached node (a square root each).
const parents = new WeakMap<HDKey, { parent: typeof secp256k1.Point.BASE; parentBytes: Uint8Array }>();

function parentOf(chain: HDKey): { parent: typeof secp256k1.Point.BASE; parentBytes: Uint8Array } {
  let entry = parents.get(chain);
  if (!entry) {
    const parent = secp256k1.Point.fromBytes(chain.publicKey as Uint8Array);
    entry = { parent, parentBytes: parent.toBytes(false) };
    parents.set(chain, entry);
  }
  return entry;
}

export function deriveAddresses(
  xpub: string,
  from: number,
  count: number,
  branch: Branch = ORDER_BRANCH,
  tweakAdd?: PublicKeyTweakAdd,
): string[] {
  checkIndex(from);
  if (!Number.isInteger(count) || count < 0) throw new RangeError("invalid count");
  checkIndex(from + Math.max(count - 1, 0));
  const chain = branchNode(xpub, branch);
  const { parent, parentBytes } = parentOf(chain);
  const data = Buffer.alloc(37);
  data.set(chain.publicKey as Uint8Array, 0);
  const out: string[] = [];
  for (let i = from; i < from + count; i++) {
    // BIP32 CKDpub: I = HMAC-SHA512(chain code, serP(parent) || ser32(i)); child = parse256(IL)·G + parent.
    // The same maths as HDKey.deriveChild, without re-parsing the parent point and hashing its
    // fingerprint for every child: about 4x faster, so the pool filler keeps up with bursts.
    data.writeUInt32BE(i, 33);
    const digest = createHmac("sha512", chain.chainCode as Uint8Array)
      .update(data)
      .digest();
    const il = digest.subarray(0, 32);
    const tweak = BigInt(`0x${il.toString("hex")}`);
    if (tweak === 0n || tweak >= secp256k1.Point.CURVE().n) {
      // Probability below 2^-127; BIP32 says to skip the index, as @scure/bip32 does by throwing.
      out.push(addressFromPublicKey(chain.deriveChild(i).publicKey as Uint8Array));
      continue;
    }
    if (tweakAdd) {
      const child = tweakAdd(parentBytes, il);
      if (child.length !== 65 || child[0] !== 4)
        throw new Error("tweakAdd must return a 65-byte uncompressed key");
      out.push(addressFromPublicKey(child.subarray(1)));
      continue;
    }
    // Variable-time multiplication is fine here: IL comes from the xpub, which this tier holds anyway.
    const child = base().multiplyUnsafe(tweak).add(parent);
    out.push(addressFromPublicKey(child.toBytes(false).subarray(1)));
  }
  return out;
}
