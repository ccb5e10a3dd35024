import { createHash } from "node:crypto";
import { bytesToHex, hexToBytes } from "@stablegate/tron/bytes";
import { keccak256 } from "@stablegate/tron/hash";

export { bytesToHex, hexToBytes };

export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

export function sha256Bytes(data: Uint8Array | string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

export function keccakHex(data: Uint8Array | string): string {
  return bytesToHex(keccak256(typeof data === "string" ? new TextEncoder().encode(data) : data));
}

export function utf8ToHex(s: string): string {
  return Buffer.from(s, "utf8").toString("hex");
}

export function hexToUtf8(h: string): string {
  return Buffer.from(h, "hex").toString("utf8");
}

// java-tron prints int64 fields as JSON numbers. Money is bigint here, so the serialiser writes bigints
// as bare digits instead of going through a lossy JS number.
const BIG_MARK = "\u0000big:";
const BIG_RE = /"\\u0000big:(-?\d+)"/g;

export function toJson(value: unknown): string {
  let sawBig = false;
  const s = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === "bigint") {
      sawBig = true;
      return BIG_MARK + v.toString();
    }
    return v;
  });
  return sawBig ? s.replace(BIG_RE, "$1") : s;
}

/** "12.5" -> 12_500_000n for 6-decimal units; at most 6 decimals, never negative. */
export function parseUnits6(s: string): bigint {
  if (!/^\d+(\.\d{1,6})?$/.test(s)) throw new Error(`invalid amount ${JSON.stringify(s)}: up to 6 decimals`);
  const [whole = "0", frac = ""] = s.split(".");
  return BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(6, "0"));
}

export function parseIntString(s: string): bigint {
  if (!/^\d+$/.test(s)) throw new Error(`invalid integer ${JSON.stringify(s)}`);
  return BigInt(s);
}

/** 32-byte big-endian word of a non-negative bigint. */
export function word(v: bigint): string {
  return v.toString(16).padStart(64, "0");
}
