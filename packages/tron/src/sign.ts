import { secp256k1 } from "@noble/curves/secp256k1.js";
import { addressFromPublicKey } from "./address.js";
import { bytesToHex, hexToBytes } from "./bytes.js";
import { privateKeyToBytes } from "./keys.js";

export { privateKeyToHex, randomPrivateKey } from "./keys.js";

/**
 * java-tron/TronWeb signature layout: r (32) || s (32) || v (1) with v = recovery + 27, low-s,
 * RFC 6979 deterministic, over the digest as is (no extra hashing).
 */
export function signDigest(digest32: Uint8Array, priv: Uint8Array | string): string {
  if (digest32.length !== 32) throw new Error("digest must be 32 bytes");
  const sig = secp256k1.sign(digest32, privateKeyToBytes(priv), {
    prehash: false,
    lowS: true,
    format: "recovered",
  });
  const recovery = sig[0] as number;
  return bytesToHex(sig.subarray(1)) + (recovery + 27).toString(16).padStart(2, "0");
}

/** Appends a signature over txID; signing the same key twice does not add a duplicate. */
export function signTransaction<T extends { txID: string; signature?: string[] }>(
  tx: T,
  priv: Uint8Array | string,
): T & { signature: string[] } {
  const txId = hexToBytes(tx.txID);
  if (txId.length !== 32) throw new Error("txID must be 32 bytes");
  const sig = signDigest(txId, priv);
  const existing = (tx.signature ?? []).map((s) => s.toLowerCase());
  return { ...tx, signature: existing.includes(sig) ? existing : [...existing, sig] };
}

/** The base58 address whose key made signatureHex over txIdHex; throws on a malformed signature. */
export function recoverSigner(txIdHex: string, signatureHex: string): string {
  const digest = hexToBytes(txIdHex);
  if (digest.length !== 32) throw new Error("txID must be 32 bytes");
  const sig = hexToBytes(signatureHex);
  if (sig.length !== 65) throw new Error("signature must be 65 bytes");
  const v = sig[64] as number;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) throw new Error("invalid signature recovery byte");
  const recovered = new Uint8Array(65);
  recovered[0] = recovery;
  recovered.set(sig.subarray(0, 64), 1);
  let pub: Uint8Array;
  try {
    pub = secp256k1.recoverPublicKey(recovered, digest, { prehash: false });
  } catch {
    throw new Error("invalid signature");
  }
  return addressFromPublicKey(pub);
}
