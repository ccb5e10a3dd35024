import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes, strip0x } from "./bytes.js";

/** Hex (0x optional; short keys are left-padded as TronWeb does) or 32 bytes to validated 32 bytes. */
export function privateKeyToBytes(priv: Uint8Array | string): Uint8Array {
  let bytes: Uint8Array;
  if (typeof priv === "string") {
    const h = strip0x(priv);
    if (h.length === 0 || h.length > 64) throw new Error("invalid private key");
    bytes = hexToBytes(h.padStart(64, "0"));
  } else {
    if (priv.length !== 32) throw new Error("invalid private key");
    bytes = priv;
  }
  if (!secp256k1.utils.isValidSecretKey(bytes)) throw new Error("invalid private key");
  return bytes;
}

export function privateKeyToHex(priv: Uint8Array | string): string {
  return bytesToHex(privateKeyToBytes(priv));
}

export function randomPrivateKey(): Uint8Array {
  return secp256k1.utils.randomSecretKey();
}
