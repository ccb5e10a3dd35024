/**
 * The derivation of the pool's deposit addresses: @stablegate/tron's deriveAddresses with its point
 * arithmetic (parent + IL·G, one point multiplication per address) done by libsecp256k1 where it
 * loads. The registry's `secp256k1` package ships prebuilt N-API binaries inside the package
 * (linux-x64 glibc and musl, darwin-arm64, win32-x64), loaded at run time by node-gyp-build, so
 * `npm ci` needs no compiler, no download and no install script. Per address it costs about a
 * sixth of the pure-JavaScript derivation (bench/derive-cost.ts), so on a default pool the
 * derivation no longer takes the CPU that order creation needs.
 *
 * Where the binding does not load (another platform, a runtime without N-API) or disagrees with
 * the known answers below, derivation stays on @noble/curves, with the same addresses. Public
 * derivation only: the binding gets the branch's public key and HMAC outputs of the xpub's chain
 * code, never a private key (keys are derived and used for signing in pure JavaScript only).
 */
import { createRequire } from "node:module";
import { deriveAddresses, type Branch, type PublicKeyTweakAdd } from "@stablegate/tron/hd";

export interface NativeSecp256k1 {
  publicKeyTweakAdd(pubkey: Uint8Array, tweak: Uint8Array, compressed: boolean): Uint8Array;
}

export type PoolDerivationBackend = "libsecp256k1" | "noble";

/**
 * Known answers (m/44'/195'/0'/0/0 and /1 of the public "abandon ... about" test mnemonic, as TronWeb
 * derives them): the binding is used only if it reproduces them.
 */
const CHECK_XPUB =
  "xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd";
const CHECK_ADDRESSES = ["TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH", "TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK"];

export interface PoolDerivation {
  backend: PoolDerivationBackend;
  /** The native binding's point arithmetic, when it is the backend. */
  tweakAdd?: PublicKeyTweakAdd;
  /** Why the native binding is not used. */
  reason?: string;
}

/**
 * Loads the binding through `requireBinding` and checks it against the known answers: the native
 * backend when both succeed, @noble/curves (and why) otherwise. Never throws.
 */
export function loadPoolDerivation(requireBinding: () => NativeSecp256k1): PoolDerivation {
  try {
    const binding = requireBinding();
    const tweakAdd: PublicKeyTweakAdd = (parent, tweak) => binding.publicKeyTweakAdd(parent, tweak, false);
    const answers = deriveAddresses(CHECK_XPUB, 0, CHECK_ADDRESSES.length, 0, tweakAdd);
    if (answers.join() !== CHECK_ADDRESSES.join())
      return { backend: "noble", reason: "the native secp256k1 binding gave wrong known answers" };
    return { backend: "libsecp256k1", tweakAdd };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { backend: "noble", reason: `the native secp256k1 binding failed: ${message.split("\n")[0]}` };
  }
}

let loaded: PoolDerivation | null = null;

function load(): PoolDerivation {
  // secp256k1/bindings.js loads the prebuilt binary and throws where there is none; the package's
  // main entry would fall back to the elliptic library instead, slower than @noble/curves.
  loaded ??= loadPoolDerivation(
    () => createRequire(import.meta.url)("secp256k1/bindings.js") as NativeSecp256k1,
  );
  return loaded;
}

/** Which implementation derives the pool's addresses in this thread, and why not the native one. */
export function poolDerivationBackend(): Omit<PoolDerivation, "tweakAdd"> {
  const { backend, reason } = load();
  return reason === undefined ? { backend } : { backend, reason };
}

/** deriveAddresses() of @stablegate/tron/hd (the same addresses), on libsecp256k1 where it loads. */
export function derivePoolAddresses(xpub: string, from: number, count: number, branch: Branch = 0): string[] {
  return deriveAddresses(xpub, from, count, branch, load().tweakAdd);
}
