// Seeded so a failing case reproduces; the seed is printed in the failing assertion's message.
export function makeRng(seed: number) {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (maxExclusive: number): number => Math.floor(next() * maxExclusive);
  const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => int(256));
  const hex = (n: number): string => Buffer.from(bytes(n)).toString("hex");
  /** A bigint in [1, 2^bits) with a random bit length, so every varint length is exercised. */
  const bigintUpTo = (bits: number): bigint => {
    const len = 1 + int(bits);
    let v = 0n;
    for (let i = 0; i < len; i++) v = (v << 1n) | BigInt(int(2));
    return v | (1n << BigInt(len - 1));
  };
  return { next, int, bytes, hex, bigintUpTo, bool: () => next() < 0.5 };
}
