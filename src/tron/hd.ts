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

/** The private key of m/44'/195'/0'/0/index. The caller must wipe it (`key.fill(0)`) after signing. */
export function derivePrivateKey(mnemonic: string, index: number, passphrase = ""): Uint8Array {
  checkIndex(index);
  const account = accountNode(mnemonic, passphrase);
  const chain = account.deriveChild(0);
  const leaf = chain.deriveChild(index);
  const key = Uint8Array.from(leaf.privateKey as Uint8Array);
  account.wipePrivateData();
  chain.wipePrivateData();
  leaf.wipePrivateData();
  return key;
}

// Deriving the external chain node (/0) costs as much as a leaf; pools derive hundreds of leaves
// from the same xpub, so the chain node is kept per xpub (public data only).
const chainCache = new Map<string, HDKey>();
const CHAIN_CACHE_MAX = 16;

function externalChain(xpub: string): HDKey {
  const cached = chainCache.get(xpub);
  if (cached) return cached;
  let account: HDKey;
  try {
    account = HDKey.fromExtendedKey(xpub);
  } catch {
    throw new Error("invalid xpub");
  }
  if (account.privateKey) throw new Error("expected an xpub, got a private extended key");
  if (account.depth !== 3) throw new Error("expected the account-level xpub (m/44'/195'/0')");
  const chain = account.deriveChild(0);
  if (chainCache.size >= CHAIN_CACHE_MAX) chainCache.delete(chainCache.keys().next().value as string);
  chainCache.set(xpub, chain);
  return chain;
}

/** The base58 address of m/44'/195'/0'/0/index, from the account xpub alone. */
export function deriveAddress(xpub: string, index: number): string {
  checkIndex(index);
  return addressFromPublicKey(externalChain(xpub).deriveChild(index).publicKey as Uint8Array);
}

export function deriveAddresses(xpub: string, from: number, count: number): string[] {
  checkIndex(from);
  if (!Number.isInteger(count) || count < 0) throw new RangeError("invalid count");
  checkIndex(from + Math.max(count - 1, 0));
  const chain = externalChain(xpub);
  const out: string[] = [];
  for (let i = from; i < from + count; i++) {
    out.push(addressFromPublicKey(chain.deriveChild(i).publicKey as Uint8Array));
  }
  return out;
}
