/**
 * CPU cost of deriving one pool address, single thread: @stablegate/tron's deriveAddresses
 * on @noble/curves (pure JavaScript, what the pool used before) against derivePoolAddresses on the
 * `secp256k1` package's native libsecp256k1 binding (src/wallet/pool-derivation.ts), and the parts
 * of one derivation (HMAC-SHA512, the point arithmetic on each, keccak256, base58check).
 *
 *   npx tsx bench/derive-cost.ts
 *
 * Rounds alternate between the implementations, so a burst of other load hits each; the median
 * round is printed, in microseconds of CPU time of this process per address (process.cpuUsage,
 * less sensitive to other processes than wall time) and of wall time. First it checks that both
 * give the same addresses for BENCH_CHECK indexes. Env: BENCH_ROUNDS (7), BENCH_ADDRESSES (2,000 per
 * round and implementation), BENCH_BATCH (100: the filler's smallest batch), BENCH_CHECK (2,000).
 */
import { createHash, createHmac } from "node:crypto";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { createBase58check } from "@scure/base";
import { HDKey } from "@scure/bip32";
import { deriveAddresses, mnemonicToAccountXpub } from "@stablegate/tron/hd";
import {
  derivePoolAddresses,
  poolDerivationBackend,
  type NativeSecp256k1,
} from "../src/wallet/pool-derivation.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const perRound = Number(process.env.BENCH_ADDRESSES ?? 2_000);
const batch = Number(process.env.BENCH_BATCH ?? 100);
const checkCount = Number(process.env.BENCH_CHECK ?? 2_000);

const backend = poolDerivationBackend();
console.log(`pool derivation backend: ${backend.backend}${backend.reason ? ` (${backend.reason})` : ""}`);
if (backend.backend !== "libsecp256k1") process.exit(1);
const native = createRequire(import.meta.url)("secp256k1/bindings.js") as NativeSecp256k1;

// A fresh wallet per run: nothing about the figures depends on which.
const xpub = mnemonicToAccountXpub(
  "legal winner thank year wave sausage worth useful legal winner thank yellow",
  `bench-${Date.now()}`,
);
const check = derivePoolAddresses(xpub, 0, checkCount);
const reference = deriveAddresses(xpub, 0, checkCount);
const mismatches = check.filter((address, i) => address !== reference[i]).length;
console.log(
  `same addresses for indexes 0..${checkCount - 1}: ${mismatches === 0 ? "yes" : `NO, ${mismatches} differ`}`,
);
if (mismatches > 0) process.exit(1);

const chain = HDKey.fromExtendedKey(xpub).deriveChild(0);
const parent33 = chain.publicKey as Uint8Array;
const parent65 = secp256k1.Point.fromBytes(parent33).toBytes(false);
const parentPoint = secp256k1.Point.fromBytes(parent33);
const data = Buffer.alloc(37);
data.set(parent33, 0);
const hmac = (i: number) => {
  data.writeUInt32BE(i, 33);
  return createHmac("sha512", chain.chainCode as Uint8Array)
    .update(data)
    .digest();
};
const tweaks = Array.from({ length: perRound }, (_, i) => hmac(i).subarray(0, 32));
const xy = native.publicKeyTweakAdd(parent65, tweaks[0] as Uint8Array, false).subarray(1);
const payload = new Uint8Array(21);
payload[0] = 0x41;
payload.set(keccak_256(xy).subarray(12), 1);
const base58check = createBase58check(sha256);
secp256k1.Point.BASE.precompute(8);

let next = 1_000_000;
const cases: [string, (n: number) => void][] = [
  [
    `noble: deriveAddresses, batches of ${batch}`,
    (n) => {
      for (let done = 0; done < n; done += batch)
        deriveAddresses(xpub, (next += batch), Math.min(batch, n - done));
    },
  ],
  [
    `libsecp256k1: derivePoolAddresses, batches of ${batch}`,
    (n) => {
      for (let done = 0; done < n; done += batch)
        derivePoolAddresses(xpub, (next += batch), Math.min(batch, n - done));
    },
  ],
  ["  part: HMAC-SHA512 (node:crypto)", (n) => void Array.from({ length: n }, (_, i) => hmac(i))],
  [
    "  part: noble IL·G + parent, 65-byte key",
    (n) => {
      for (let i = 0; i < n; i++) {
        const il = BigInt(`0x${Buffer.from(tweaks[i % perRound] as Uint8Array).toString("hex")}`);
        secp256k1.Point.BASE.multiplyUnsafe(il).add(parentPoint).toBytes(false);
      }
    },
  ],
  [
    "  part: libsecp256k1 publicKeyTweakAdd, 65-byte key",
    (n) => {
      for (let i = 0; i < n; i++)
        native.publicKeyTweakAdd(parent65, tweaks[i % perRound] as Uint8Array, false);
    },
  ],
  [
    "  part: keccak256 of 64 bytes (@noble/hashes)",
    (n) => {
      for (let i = 0; i < n; i++) keccak_256(xy);
    },
  ],
  [
    "  part: base58check of 21 bytes (@scure/base)",
    (n) => {
      for (let i = 0; i < n; i++) base58check.encode(payload);
    },
  ],
  [
    "  part: double SHA-256 of 21 bytes (node:crypto)",
    (n) => {
      for (let i = 0; i < n; i++)
        createHash("sha256").update(createHash("sha256").update(payload).digest()).digest();
    },
  ],
];

for (const [, run] of cases) run(batch); // warm-up
const cpu = new Map<string, number[]>();
const wall = new Map<string, number[]>();
const load = loadavg().map((l) => l.toFixed(2));
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of cases) {
    const startWall = process.hrtime.bigint();
    const startCpu = process.cpuUsage();
    run(perRound);
    const used = process.cpuUsage(startCpu);
    const elapsed = Number(process.hrtime.bigint() - startWall) / 1e3;
    (cpu.get(name) ?? cpu.set(name, []).get(name))?.push((used.user + used.system) / perRound);
    (wall.get(name) ?? wall.set(name, []).get(name))?.push(elapsed / perRound);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;
console.log(
  `load average before: ${load.join(" ")}, after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
console.log(`${rounds} alternating rounds of ${perRound} addresses; median round, µs per address:`);
console.log(`${"".padEnd(52)}${"CPU".padStart(9)}${"wall".padStart(9)}`);
for (const [name] of cases) {
  console.log(
    `${name.padEnd(52)}${median(cpu.get(name) ?? [])
      .toFixed(1)
      .padStart(9)}${median(wall.get(name) ?? [])
      .toFixed(1)
      .padStart(9)}`,
  );
}
const [nobleName, nativeName] = cases.map(([name]) => name);
const ratio = median(cpu.get(nobleName as string) ?? []) / median(cpu.get(nativeName as string) ?? []);
console.log(`libsecp256k1 derivation: ${ratio.toFixed(1)}x faster than noble (CPU per address)`);
