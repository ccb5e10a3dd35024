/**
 * npx tsx bench/evm-libs.ts   (EVM_LIBS_RUNS=5)
 *
 * The EVM toolkit choice, measured: viem and ethers v6 (the versions in package.json) side by side.
 * - install: each library alone in a scratch project (`npm install --prefer-offline`), bytes on disk
 *   and packages;
 * - import time and RSS: a fresh plain-node process per run imports what the service would use, then
 *   does the service's EVM work with it (bench/evm-libs-workload.mjs): 1,000 addresses from an xpub,
 *   1,000 ERC-20 encodes and log decodes, 100 EIP-1559 and 100 type-4 signatures, 50 rounds of
 *   JSON-RPC reads (head, `finalized`, logs) against the EVM devnet, one sent transfer;
 * - baseline: the same process importing no EVM library (the HD keys libraries both use are loaded
 *   in every run), so RSS is shown as the library's addition.
 * Both libraries must derive the same addresses and sign the same bytes; the script fails otherwise.
 */
import { spawn } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { startEvmDevnet } from "@stablegate/devnet";

const ROOT = join(import.meta.dirname, "..");
const RUNS = Number(process.env.EVM_LIBS_RUNS ?? 5);
const LIBS = ["viem", "ethers"] as const;
const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

interface Run {
  lib: string;
  rssStart: number;
  rssEnd: number;
  importMs?: number;
  rssImport?: number;
  workMs?: number;
  phases?: Record<string, number>;
  first?: string;
  raw1559?: string;
  raw7702?: string;
  logs?: number;
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, out }));
  });
}

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? bytesUnder(path) : lstatSync(path).size;
  }
  return total;
}

function version(lib: string): string {
  return (
    JSON.parse(readFileSync(join(ROOT, "node_modules", lib, "package.json"), "utf8")) as { version: string }
  ).version;
}

async function installSize(lib: string): Promise<{ bytes: number; packages: number }> {
  const dir = mkdtempSync(join(tmpdir(), `evm-libs-${lib}-`));
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "probe", private: true }));
    const r = await run(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        `${lib}@${version(lib)}`,
      ],
      dir,
    );
    if (r.code !== 0) throw new Error(`npm install ${lib} failed:\n${r.out}`);
    const lock = JSON.parse(readFileSync(join(dir, "node_modules/.package-lock.json"), "utf8")) as {
      packages: Record<string, unknown>;
    };
    return { bytes: bytesUnder(join(dir, "node_modules")), packages: Object.keys(lock.packages).length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

const sizes = new Map<string, { bytes: number; packages: number }>();
for (const lib of LIBS) sizes.set(lib, await installSize(lib));

const devnet = await startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 4 });
try {
  await devnet.mine(10);
  const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(ANVIL_MNEMONIC)).derive(
    "m/44'/60'/0'",
  ).publicExtendedKey;
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Rotate the order so no library always runs first on a cold cache.
    const order = ["none", ...LIBS];
    for (let k = 0; k < i % order.length; k++) order.push(order.shift() as string);
    for (const lib of order) {
      const r = await run(
        process.execPath,
        [
          "--expose-gc",
          join(ROOT, "bench/evm-libs-workload.mjs"),
          lib,
          xpub,
          devnet.rpcUrl,
          devnet.usdtContract,
          devnet.faucetPrivateKey,
        ],
        ROOT,
      );
      if (r.code !== 0) throw new Error(`${lib} run failed:\n${r.out}`);
      runs.push(JSON.parse(r.out.trim().split("\n").pop() as string) as Run);
    }
  }

  const of = (lib: string) => runs.filter((r) => r.lib === lib);
  const baseline = median(of("none").map((r) => r.rssEnd));
  const [viem, ethers] = LIBS.map((lib) => of(lib)[0] as Run);
  const agree = {
    address: viem?.first === ethers?.first && viem?.first === devnet.faucetAddress,
    eip1559: viem?.raw1559 === ethers?.raw1559,
    type4: viem?.raw7702 === ethers?.raw7702,
  };
  if (!agree.address || !agree.eip1559 || !agree.type4) {
    throw new Error(`viem and ethers disagree: ${JSON.stringify({ agree, viem, ethers })}`);
  }

  console.log(
    `EVM toolkit, ${RUNS} runs each (medians), Node ${process.version}, ${new Date().toISOString()}`,
  );
  console.log(`baseline (no EVM library, HD key libraries loaded): RSS ${mb(baseline)} MB`);
  console.log(
    "library         install        packages  import ms  RSS after import  RSS after work  work ms",
  );
  for (const lib of LIBS) {
    const rs = of(lib);
    const size = sizes.get(lib) as { bytes: number; packages: number };
    console.log(
      [
        `${lib}@${version(lib)}`.padEnd(16),
        `${mb(size.bytes)} MB`.padStart(8),
        String(size.packages).padStart(13),
        median(rs.map((r) => r.importMs ?? 0))
          .toFixed(0)
          .padStart(10),
        `+${mb(median(rs.map((r) => r.rssImport ?? 0)) - baseline)} MB`.padStart(18),
        `+${mb(median(rs.map((r) => r.rssEnd)) - baseline)} MB`.padStart(16),
        median(rs.map((r) => r.workMs ?? 0))
          .toFixed(0)
          .padStart(9),
      ].join(""),
    );
  }
  const phaseNames = ["addresses", "abi", "sign", "rpc"];
  console.log(
    "work by phase (ms): addresses = 1,000 from the xpub; abi = 1,000 encodes + log decodes; " +
      "sign = 100 EIP-1559 + 100 type-4; rpc = 50 × (head, finalized, logs) + one sent transfer",
  );
  for (const lib of LIBS) {
    const rs = of(lib);
    console.log(
      `  ${lib.padEnd(8)}` +
        phaseNames.map((p) => `${p} ${median(rs.map((r) => r.phases?.[p] ?? 0)).toFixed(0)}`).join(", "),
    );
  }
  console.log(
    `cross-check: the same first address (${viem?.first}, the devnet faucet), identical EIP-1559 and type-4 signed bytes`,
  );
} finally {
  await devnet.close();
}
