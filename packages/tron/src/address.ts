import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { createBase58check } from "@scure/base";
import { bytesToHex, hexToBytes, isHexString, strip0x } from "./bytes.js";
import { privateKeyToBytes } from "./keys.js";

/** Every TRON mainnet-style address starts with this byte (the 'T' in base58). */
export const ADDRESS_PREFIX_BYTE = 0x41;
export const ADDRESS_PREFIX = "41";

const base58check = createBase58check(sha256);

function prefixedBytes(hex: string): Uint8Array {
  let h = strip0x(hex).toLowerCase();
  if (h.length === 40) h = ADDRESS_PREFIX + h;
  if (h.length !== 42 || !isHexString(h) || !h.startsWith(ADDRESS_PREFIX)) {
    throw new Error("invalid TRON hex address");
  }
  return hexToBytes(h);
}

/** '41…' (21-byte) or 20-byte EVM hex, with or without 0x, to a base58check T-address. */
export function hexToBase58(hex: string): string {
  return base58check.encode(prefixedBytes(hex));
}

/** Base58 T-address to lowercase '41…' hex; throws on a bad checksum, length or prefix. */
export function base58ToHex(addr: string): string {
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(addr);
  } catch {
    throw new Error("invalid TRON base58 address");
  }
  if (bytes.length !== 21 || bytes[0] !== ADDRESS_PREFIX_BYTE) throw new Error("invalid TRON base58 address");
  return bytesToHex(bytes);
}

export function isValidAddress(s: unknown): boolean {
  if (typeof s !== "string" || s.length !== 34) return false;
  try {
    base58ToHex(s);
    return true;
  } catch {
    return false;
  }
}

/** True for '41…' 21-byte hex (with or without 0x). */
export function isHexAddress(s: unknown): boolean {
  if (typeof s !== "string") return false;
  const h = strip0x(s);
  return h.length === 42 && isHexString(h) && h.toLowerCase().startsWith(ADDRESS_PREFIX);
}

/** Either form (base58, '41…' hex, 20-byte EVM hex) to lowercase '41…' hex. */
export function toHex(addr: string): string {
  if (addr.length === 34 && !isHexString(strip0x(addr))) return base58ToHex(addr);
  return bytesToHex(prefixedBytes(addr));
}

/** Either form to a base58 T-address. */
export function toBase58(addr: string): string {
  return hexToBase58(toHex(addr));
}

/** The 20-byte form without the 41 prefix, lowercase: what ABI words and java-tron log topics carry. */
export function evmHex(addr: string): string {
  return toHex(addr).slice(2);
}

/** Compressed (33) or uncompressed (65, or 64 without the 04 tag) secp256k1 public key to base58. */
export function addressFromPublicKey(pub: Uint8Array): string {
  let xy: Uint8Array;
  if (pub.length === 64) xy = pub;
  else xy = secp256k1.Point.fromBytes(pub).toBytes(false).subarray(1);
  const hash = keccak_256(xy);
  const out = new Uint8Array(21);
  out[0] = ADDRESS_PREFIX_BYTE;
  out.set(hash.subarray(12), 1);
  return base58check.encode(out);
}

export function addressFromPrivateKey(priv: Uint8Array | string): string {
  return addressFromPublicKey(secp256k1.getPublicKey(privateKeyToBytes(priv), false));
}
