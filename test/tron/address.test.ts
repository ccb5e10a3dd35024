import { TronWeb } from "tronweb";
import { describe, expect, it } from "vitest";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import {
  addressFromPrivateKey,
  addressFromPublicKey,
  base58ToHex,
  evmHex,
  hexToBase58,
  isValidAddress,
  toBase58,
  toHex,
} from "@stablegate/tron/address";
import { privateKeyToHex } from "@stablegate/tron/sign";
import { makeRng } from "./rng.js";

const KEY_ONE = "0000000000000000000000000000000000000000000000000000000000000001";
const ADDR_ONE = "TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC";

describe("address", () => {
  it("derives TMVQGm1q… from private key 1 in every accepted key form", () => {
    expect(addressFromPrivateKey(KEY_ONE)).toBe(ADDR_ONE);
    expect(addressFromPrivateKey("0x01")).toBe(ADDR_ONE);
    expect(addressFromPrivateKey(Buffer.from(KEY_ONE, "hex"))).toBe(ADDR_ONE);
  });

  it("matches TronWeb for 1,000 random private keys, from compressed and uncompressed public keys", () => {
    const rng = makeRng(1);
    for (let i = 0; i < 1000; i++) {
      const priv = secp256k1.utils.randomSecretKey(rng.bytes(48));
      const hex = privateKeyToHex(priv);
      const expected = TronWeb.address.fromPrivateKey(hex) as string;
      expect(addressFromPrivateKey(priv), `key ${hex}`).toBe(expected);
      expect(addressFromPublicKey(secp256k1.getPublicKey(priv, true))).toBe(expected);
      expect(toHex(expected)).toBe(TronWeb.address.toHex(expected).toLowerCase());
    }
  });

  it("round-trips base58 and hex in both directions and accepts 0x and 20-byte EVM forms", () => {
    const rng = makeRng(2);
    for (let i = 0; i < 300; i++) {
      const body = rng.hex(20);
      const hex = "41" + body;
      const b58 = hexToBase58(hex);
      expect(b58).toBe(TronWeb.address.fromHex(hex));
      expect(isValidAddress(b58)).toBe(true);
      expect(base58ToHex(b58)).toBe(hex);
      expect(hexToBase58("0x" + hex.toUpperCase())).toBe(b58);
      expect(hexToBase58(body)).toBe(b58);
      expect(hexToBase58("0x" + body)).toBe(b58);
      expect(toHex(b58)).toBe(hex);
      expect(toHex(hex)).toBe(hex);
      expect(toBase58(hex)).toBe(b58);
      expect(toBase58(b58)).toBe(b58);
      expect(evmHex(b58)).toBe(body);
      expect(evmHex("0x" + hex)).toBe(body);
    }
  });

  it("rejects a base58 address whose checksum is off by one character", () => {
    const bad = ADDR_ONE.slice(0, -1) + (ADDR_ONE.endsWith("C") ? "D" : "C");
    expect(isValidAddress(bad)).toBe(false);
    expect(TronWeb.isAddress(bad)).toBe(false);
    expect(() => base58ToHex(bad)).toThrow(/invalid/);
    expect(() => toHex(bad)).toThrow();
  });

  it("rejects wrong prefixes, lengths and non-address strings", () => {
    expect(() => hexToBase58("42" + "00".repeat(20))).toThrow();
    expect(() => hexToBase58("41" + "00".repeat(18))).toThrow();
    expect(() => hexToBase58("zz" + "00".repeat(20))).toThrow();
    expect(isValidAddress("")).toBe(false);
    expect(isValidAddress("0x41" + "00".repeat(20))).toBe(false);
    expect(isValidAddress(42 as unknown as string)).toBe(false);
    // a well-formed base58check string with another version byte is not a TRON address
    const otherVersion = createBase58check(sha256).encode(
      Uint8Array.from([0x42, ...new Uint8Array(20).fill(7)]),
    );
    expect(otherVersion).toHaveLength(34);
    expect(isValidAddress(otherVersion)).toBe(false);
    expect(() => base58ToHex(otherVersion)).toThrow();
  });
});
