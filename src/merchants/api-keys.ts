/**
 * Merchant API keys (DESIGN.md 8): `sg_live_` on mainnet, `sg_test_` elsewhere, then 32 random bytes
 * in base62. The service keeps only HMAC-SHA256(API_KEY_PEPPER, key): a leaked database does not
 * yield usable keys, and a lookup by hash needs no per-row comparison.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { TronNetwork } from "../config.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 62^43 > 2^256, so 43 characters hold any 32-byte value; shorter encodings are left-padded. */
const SECRET_LENGTH = 43;
/** Characters after the fixed prefix shown in api_key_prefix. */
const VISIBLE_CHARS = 6;
const API_KEY_PATTERN = /^sg_(live|test)_[0-9A-Za-z]{43}$/;

export interface GeneratedApiKey {
  /** The raw key: shown once to the operator, never stored or logged. */
  key: string;
  /** Fixed prefix plus the first characters of the secret part; safe to show and log. */
  prefix: string;
}

export function apiKeyFixedPrefix(network: TronNetwork): string {
  return network === "mainnet" ? "sg_live_" : "sg_test_";
}

function base62(bytes: Uint8Array): string {
  let value = BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`);
  let out = "";
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(SECRET_LENGTH, "0");
}

export function generateApiKey(network: TronNetwork): GeneratedApiKey {
  const random = randomBytes(32);
  const secret = base62(random);
  random.fill(0);
  const fixed = apiKeyFixedPrefix(network);
  return { key: `${fixed}${secret}`, prefix: `${fixed}${secret.slice(0, VISIBLE_CHARS)}` };
}

/** Lowercase hex HMAC-SHA256 of the key under the pepper: the only form stored in merchants.api_key_hash. */
export function hashApiKey(pepper: string, key: string): string {
  return createHmac("sha256", pepper).update(key, "utf8").digest("hex");
}

/** Cheap shape check, so garbage headers never reach the database. */
export function looksLikeApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}
