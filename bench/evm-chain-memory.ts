/**
 * What each enabled EVM chain adds to a worker's memory: `stablegate serve --role worker` (under
 * tsx, as `npm start` runs) on a scratch PostgreSQL database with CHAINS growing from `tron` alone
 * (the same-run baseline) to tron plus one, two and three EVM chains, each on its own Anvil devnet
 * (the tokens watched, the chain's scanner leader, confirmer and outbox running). Each setting is
 * started ROUNDS times in alternating order; after start-up it settles SETTLE_MS, then its resident
 * memory (VmRSS) is sampled every second for SAMPLE_MS and the median kept. Prints the median per
 * setting and the difference per added chain. Goal: each chain adds < 30 MB.
 *
 *   npx tsx bench/evm-chain-memory.ts [rounds=4]
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { resolve } from "node:path";
import pg from "pg";
import { startEvmDevnet, type EvmDevnet } from "@stablegate/devnet";
import { ADMIN_URL, benchBaseEnv, spawnDevnet } from "./chain-lib.js";

const ROUNDS = Number(process.argv[2] ?? 4);
const SETTLE_MS = 15_000;
const SAMPLE_MS = 5_000;
const ROOT = resolve(import.meta.dirname, "..");
const EVM_CHAINS = ["ethereum", "bsc", "polygon"] as const;
const MB = 1024 * 1024;

const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** One worker with `chains` enabled: its settled resident memory. */
async function measure(env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "serve", "--role", "worker"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`worker exited: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`worker not healthy after 60 s: ${stderr}`);
      const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health/live`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      await pause(50);
    }
    await pause(SETTLE_MS);
    const samples: number[] = [];
    for (let t = 0; t < SAMPLE_MS; t += 1000) {
      samples.push(rss(child.pid as number));
      await pause(1000);
    }
    return median(samples);
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
  }
}

const dbName = `perf_bench_evm_mem_${randomBytes(4).toString("hex")}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(ADMIN_URL);
url.pathname = `/${dbName}`;
const tron = await spawnDevnet(3000);
const anvils: EvmDevnet[] = [];
try {
  for (const [i] of EVM_CHAINS.entries())
    anvils.push(await startEvmDevnet({ port: 0, chainId: 31337 + i, blockTimeMs: 1000, finalityDepth: 4 }));
  const base = {
    ...benchBaseEnv(),
    LOG_LEVEL: "warn",
    DATABASE_URL: url.toString(),
    TRON_NETWORK: "devnet",
    TRON_NODE_URL: tron.url,
    USDT_CONTRACT: tron.usdtContract,
  };
  const settings = [0, 1, 2, 3].map((n) => {
    const env: Record<string, string> = { ...base, CHAINS: ["tron", ...EVM_CHAINS.slice(0, n)].join(",") };
    for (const [i, chain] of EVM_CHAINS.slice(0, n).entries()) {
      const d = anvils[i] as EvmDevnet;
      const prefix = chain.toUpperCase();
      Object.assign(env, {
        [`${prefix}_NETWORK`]: "devnet",
        [`${prefix}_RPC_URL`]: d.rpcUrl,
        [`${prefix}_USDT_CONTRACT`]: d.usdtContract,
        [`${prefix}_USDC_CONTRACT`]: d.usdcContract,
      });
    }
    return env;
  });
  const results: number[][] = settings.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [0, 1, 2, 3] : [3, 2, 1, 0];
    for (const k of order)
      (results[k] as number[]).push(await measure(settings[k] as Record<string, string>));
  }
  const medians = results.map(median);
  console.log(
    `worker RSS, settled ${SETTLE_MS / 1000} s, median of ${ROUNDS} starts (load ${loadavg()[0]?.toFixed(1)})`,
  );
  for (const [k, m] of medians.entries()) {
    const chains = settings[k]?.CHAINS;
    const added =
      k === 0 ? "baseline" : `${((m - (medians[0] as number)) / MB / k).toFixed(1)} MB per EVM chain`;
    const runs = (results[k] as number[]).map((r) => (r / MB).toFixed(0)).join(", ");
    console.log(`  CHAINS=${chains}: ${(m / MB).toFixed(1)} MB (${added}; starts: ${runs} MB)`);
  }
  const perChain = ((medians[3] as number) - (medians[0] as number)) / 3 / MB;
  console.log(
    `  each EVM chain adds ${perChain.toFixed(1)} MB; goal < 30 MB: ${perChain < 30 ? "met" : "MISSED"}`,
  );
} finally {
  for (const d of anvils) await d.close();
  await tron.close();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}
