import { TronWeb } from "tronweb";
import { describe, expect, it } from "vitest";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { addressFromPrivateKey, addressFromPublicKey } from "@stablegate/tron/address";
import {
  deriveAddress,
  deriveAddresses,
  derivePrivateKey,
  generateMnemonic,
  isValidMnemonic,
  mnemonicToAccountXpub,
  STATIC_BRANCH,
} from "@stablegate/tron/hd";

const ABANDON =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("hd", () => {
  it("derives TUEZSdKs… at index 0 of the abandon…about mnemonic, from the key and from the xpub", () => {
    const key = derivePrivateKey(ABANDON, 0);
    expect(addressFromPrivateKey(key)).toBe("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH");
    const xpub = mnemonicToAccountXpub(ABANDON);
    expect(xpub).toMatch(/^xpub/);
    expect(deriveAddress(xpub, 0)).toBe("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH");
  });

  it("matches TronWeb's fromMnemonic at m/44'/195'/0'/0/i", () => {
    const xpub = mnemonicToAccountXpub(ABANDON);
    for (const i of [0, 1, 7, 1000]) {
      const theirs = TronWeb.fromMnemonic(ABANDON, `m/44'/195'/0'/0/${i}`) as { address: string };
      expect(deriveAddress(xpub, i)).toBe(theirs.address);
    }
  });

  it("matches TronWeb's fromMnemonic at m/44'/195'/0'/1/i on the static branch, from the xpub and the key", () => {
    const xpub = mnemonicToAccountXpub(ABANDON);
    const batch = deriveAddresses(xpub, 0, 8, STATIC_BRANCH);
    for (const i of [0, 1, 7, 1000]) {
      const theirs = TronWeb.fromMnemonic(ABANDON, `m/44'/195'/0'/1/${i}`) as { address: string };
      expect(deriveAddress(xpub, i, STATIC_BRANCH)).toBe(theirs.address);
      expect(addressFromPrivateKey(derivePrivateKey(ABANDON, i, "", STATIC_BRANCH))).toBe(theirs.address);
      if (i < 8) expect(batch[i]).toBe(theirs.address);
      // never an order-branch address
      expect(deriveAddress(xpub, i)).not.toBe(theirs.address);
    }
  });

  it("gives the same address from the xpub as from the private key for 60 indexes and a passphrase", () => {
    const mnemonic = generateMnemonic();
    expect(mnemonic.split(" ")).toHaveLength(24);
    expect(isValidMnemonic(mnemonic)).toBe(true);
    const xpub = mnemonicToAccountXpub(mnemonic, "pass");
    const batch = deriveAddresses(xpub, 100, 30);
    expect(new Set(batch).size).toBe(30);
    for (let i = 0; i < 30; i++) {
      expect(batch[i]).toBe(addressFromPrivateKey(derivePrivateKey(mnemonic, 100 + i, "pass")));
      expect(deriveAddress(xpub, i)).toBe(addressFromPrivateKey(derivePrivateKey(mnemonic, i, "pass")));
    }
    expect(deriveAddress(mnemonicToAccountXpub(mnemonic), 0)).not.toBe(deriveAddress(xpub, 0));
  });

  it("derives batches with the same CKDpub result as @scure/bip32 and TronWeb, up to the last index", () => {
    const xpub = mnemonicToAccountXpub(ABANDON);
    const chain = HDKey.fromExtendedKey(xpub).deriveChild(0);
    const reference = (i: number) => addressFromPublicKey(chain.deriveChild(i).publicKey as Uint8Array);
    const batch = deriveAddresses(xpub, 0, 300);
    batch.forEach((address, i) => expect(address).toBe(reference(i)));
    const last = deriveAddresses(xpub, 2 ** 31 - 3, 3);
    last.forEach((address, i) => expect(address).toBe(reference(2 ** 31 - 3 + i)));
    const theirs = TronWeb.fromMnemonic(ABANDON, `m/44'/195'/0'/0/${2 ** 31 - 1}`) as { address: string };
    expect(last[2]).toBe(theirs.address);
  });

  it("derives a pool of 500 addresses quickly", () => {
    const xpub = mnemonicToAccountXpub(ABANDON);
    const started = performance.now();
    const pool = deriveAddresses(xpub, 0, 500);
    expect(pool).toHaveLength(500);
    expect(pool[0]).toBe("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH");
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("refuses bad mnemonics, xprvs, non-account xpubs and out-of-range indexes", () => {
    expect(() => mnemonicToAccountXpub(ABANDON.replace("about", "abandon"))).toThrow(/mnemonic/);
    expect(isValidMnemonic("hello world")).toBe(false);
    expect(() => deriveAddress("xpub-nonsense", 0)).toThrow(/xpub/);
    const xpub = mnemonicToAccountXpub(ABANDON);
    expect(() => deriveAddress(xpub, -1)).toThrow(RangeError);
    expect(() => deriveAddress(xpub, 2 ** 31)).toThrow(RangeError);
    expect(() => deriveAddresses(xpub, 2 ** 31 - 1, 2)).toThrow(RangeError);
    expect(() => derivePrivateKey(ABANDON, 1.5)).toThrow(RangeError);
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON));
    expect(() => deriveAddress(root.publicExtendedKey, 0)).toThrow(/account-level/);
    expect(() => deriveAddress(root.derive("m/44'/195'/0'").privateExtendedKey, 0)).toThrow(/xpub/);
  });
});
