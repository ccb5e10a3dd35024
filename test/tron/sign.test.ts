import { utils } from "tronweb";
import { describe, expect, it } from "vitest";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { addressFromPrivateKey, hexToBase58 } from "@stablegate/tron/address";
import {
  privateKeyToHex,
  randomPrivateKey,
  recoverSigner,
  signDigest,
  signTransaction,
} from "@stablegate/tron/sign";
import { makeRng } from "./rng.js";

const tronCrypto = utils.crypto;

describe("sign", () => {
  it("produces TronWeb's exact r||s||v signature (v = 27/28) for 200 random keys and digests", () => {
    const rng = makeRng(10);
    const vs = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const priv = secp256k1.utils.randomSecretKey(rng.bytes(48));
      const digest = rng.bytes(32);
      const ours = signDigest(digest, priv);
      expect(ours).toMatch(/^[0-9a-f]{128}(1b|1c)$/);
      vs.add(ours.slice(128));
      const theirs = tronCrypto.ECKeySign(Array.from(digest), Array.from(priv)).toLowerCase();
      expect(ours).toBe(theirs);
    }
    expect(vs.size).toBe(2);
  });

  it("signs a transaction's txID so that TronWeb's ecRecover finds the signer", () => {
    const rng = makeRng(11);
    for (let i = 0; i < 50; i++) {
      const priv = privateKeyToHex(secp256k1.utils.randomSecretKey(rng.bytes(48)));
      const tx = { txID: rng.hex(32), raw_data_hex: "00" };
      const signed = signTransaction(tx, priv);
      expect(signed.signature).toHaveLength(1);
      const recoveredHex = tronCrypto.ecRecover(tx.txID, signed.signature[0] as string);
      expect(hexToBase58(recoveredHex)).toBe(addressFromPrivateKey(priv));
      // TronWeb signing the same transaction produces the same bytes
      const theirs = tronCrypto.signTransaction(priv, { ...tx }) as { signature: string[] };
      expect(theirs.signature[0]?.toLowerCase()).toBe(signed.signature[0]);
    }
  });

  it("recovers the signer of TronWeb-made signatures and rejects tampered ones", () => {
    const rng = makeRng(12);
    for (let i = 0; i < 50; i++) {
      const priv = secp256k1.utils.randomSecretKey(rng.bytes(48));
      const txID = rng.hex(32);
      const sig = tronCrypto.ECKeySign(Array.from(Buffer.from(txID, "hex")), Array.from(priv));
      const addr = addressFromPrivateKey(priv);
      expect(recoverSigner(txID, sig)).toBe(addr);
      expect(recoverSigner("0x" + txID, "0x" + sig)).toBe(addr);
      const otherDigest = (txID[0] === "0" ? "1" : "0") + txID.slice(1);
      let other: string | undefined;
      try {
        other = recoverSigner(otherDigest, sig);
      } catch {
        other = undefined;
      }
      expect(other).not.toBe(addr);
    }
  });

  it("keeps an existing signature and does not duplicate its own", () => {
    const a = randomPrivateKey();
    const b = randomPrivateKey();
    const tx = { txID: "ab".repeat(32) };
    const once = signTransaction(signTransaction(tx, a), a);
    expect(once.signature).toHaveLength(1);
    const twoSigners = signTransaction(once, b);
    expect(twoSigners.signature).toHaveLength(2);
    expect(twoSigners.signature.map((s) => recoverSigner(tx.txID, s))).toEqual([
      addressFromPrivateKey(a),
      addressFromPrivateKey(b),
    ]);
    expect(tx).not.toHaveProperty("signature");
  });

  it("throws on malformed signatures and digests", () => {
    const id = "11".repeat(32);
    const sig = signDigest(Buffer.from(id, "hex"), randomPrivateKey());
    expect(() => recoverSigner(id, sig.slice(0, 128))).toThrow(/65 bytes/);
    expect(() => recoverSigner(id, sig.slice(0, 128) + "1d")).toThrow(/recovery/);
    expect(() => recoverSigner(id, "00".repeat(64) + "1b")).toThrow();
    expect(() => recoverSigner(id.slice(2), sig)).toThrow(/32 bytes/);
    expect(() => recoverSigner(id, "zz" + sig.slice(2))).toThrow();
    expect(() => signDigest(new Uint8Array(31), randomPrivateKey())).toThrow(/32 bytes/);
  });

  it("normalises private keys and rejects zero, the curve order and bad lengths", () => {
    expect(privateKeyToHex("0x01")).toBe("00".repeat(31) + "01");
    expect(privateKeyToHex("AB".repeat(32))).toBe("ab".repeat(32));
    expect(() => privateKeyToHex("00".repeat(32))).toThrow();
    expect(() => privateKeyToHex(secp256k1.Point.CURVE().n.toString(16))).toThrow();
    expect(() => privateKeyToHex("11".repeat(33))).toThrow();
    expect(() => privateKeyToHex(new Uint8Array(31).fill(1))).toThrow();
    expect(randomPrivateKey()).toHaveLength(32);
  });
});
