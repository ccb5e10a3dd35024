/**
 * The pool's derivation on the native libsecp256k1 binding: the same addresses as the
 * pure-JavaScript deriveAddresses for thousands of indexes on both branches, the native binding in
 * use wherever the `secp256k1` package ships a prebuilt binary for this platform, and the fallback to
 * @noble/curves when the binding does not load or gives wrong answers.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { deriveAddress, deriveAddresses, mnemonicToAccountXpub, STATIC_BRANCH } from "@stablegate/tron/hd";
import {
  derivePoolAddresses,
  loadPoolDerivation,
  poolDerivationBackend,
  type NativeSecp256k1,
} from "../../src/wallet/pool-derivation.js";
import { TEST_MNEMONIC } from "../helpers/config.js";

const require = createRequire(import.meta.url);
const xpub = mnemonicToAccountXpub(TEST_MNEMONIC, "pool-derivation");
/** Whether the secp256k1 package ships a binary for this platform (linux-x64, darwin-arm64, win32-x64). */
const prebuilt = existsSync(
  join(
    dirname(require.resolve("secp256k1/package.json")),
    "prebuilds",
    `${process.platform}-${process.arch}`,
  ),
);
const realBinding = () => require("secp256k1/bindings.js") as NativeSecp256k1;

describe("pool derivation", () => {
  it("uses libsecp256k1 where the package ships a prebuilt binary", () => {
    expect(poolDerivationBackend()).toEqual(prebuilt ? { backend: "libsecp256k1" } : expect.anything());
    expect(loadPoolDerivation(realBinding).backend).toBe(prebuilt ? "libsecp256k1" : "noble");
  });

  it("derives the same addresses as @noble/curves for 3,000 order and 500 static indexes", () => {
    expect(derivePoolAddresses(xpub, 0, 3_000)).toEqual(deriveAddresses(xpub, 0, 3_000));
    expect(derivePoolAddresses(xpub, 0, 500, STATIC_BRANCH)).toEqual(
      deriveAddresses(xpub, 0, 500, STATIC_BRANCH),
    );
    // The top of the index range (hardened indexes start at 2^31: not derivable from an xpub).
    expect(derivePoolAddresses(xpub, 0x7fffffff - 49, 50)).toEqual(
      deriveAddresses(xpub, 0x7fffffff - 49, 50),
    );
    expect(() => derivePoolAddresses(xpub, 0x7fffffff, 2)).toThrow(RangeError);
  });

  it("derives what @scure/bip32's own deriveChild derives, index by index", () => {
    const pool = derivePoolAddresses(xpub, 1_000, 40);
    for (let i = 0; i < 40; i++) expect(pool[i]).toBe(deriveAddress(xpub, 1_000 + i));
  });

  it("rejects what deriveAddresses rejects", () => {
    expect(() => derivePoolAddresses("xpub-not-really", 0, 1)).toThrow("invalid xpub");
    expect(() => derivePoolAddresses(xpub, -1, 1)).toThrow(RangeError);
  });

  it("falls back to @noble/curves when the binding does not load, saying why", () => {
    const failed = loadPoolDerivation(() => {
      throw new Error("No native build was found for platform=linux arch=riscv64\nmore");
    });
    expect(failed).toEqual({
      backend: "noble",
      reason:
        "the native secp256k1 binding failed: No native build was found for platform=linux arch=riscv64",
    });
    expect(deriveAddresses(xpub, 0, 3, 0, failed.tweakAdd)).toEqual(deriveAddresses(xpub, 0, 3));
  });

  it.runIf(prebuilt)("does not use a binding that gives wrong answers", () => {
    const native = realBinding();
    // A working binding with a wrong tweak: valid keys, wrong addresses.
    const wrong: NativeSecp256k1 = {
      publicKeyTweakAdd: (pubkey, tweak, compressed) =>
        native.publicKeyTweakAdd(
          pubkey,
          Uint8Array.from(tweak, (b, i) => (i === 31 ? b ^ 1 : b)),
          compressed,
        ),
    };
    expect(loadPoolDerivation(() => wrong)).toEqual({
      backend: "noble",
      reason: "the native secp256k1 binding gave wrong known answers",
    });
    // A binding that answers the wrong shape fails the check too.
    const compressed: NativeSecp256k1 = {
      publicKeyTweakAdd: (pubkey, tweak) => native.publicKeyTweakAdd(pubkey, tweak, true),
    };
    expect(loadPoolDerivation(() => compressed).backend).toBe("noble");
    // And the known answers are the ones the reference derivation gives.
    const good = loadPoolDerivation(realBinding);
    const abandon = mnemonicToAccountXpub(TEST_MNEMONIC);
    expect(deriveAddresses(abandon, 0, 2, 0, good.tweakAdd)).toEqual([
      deriveAddress(abandon, 0),
      deriveAddress(abandon, 1),
    ]);
  });
});
