/**
 * Shared set-up of the chain benchmarks: a devnet in its own process (a node is never in the
 * scanner's event loop), a scratch PostgreSQL database (BENCH_DATABASE_URL or the local default as
 * the admin URL), a context pointed at both, and bulk-inserted orders with allocated addresses.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { DEFAULT_FAUCET_KEY } from "@stablegate/devnet";
import { loadConfig } from "../src/config.js";
import { createContext, type Context } from "../src/context.js";
import { openDatabase } from "../src/db/connection.js";
import { migrate } from "../src/db/migrate.js";
import { createLogger } from "../src/logger.js";
import { newId } from "../src/ids.js";
import { hexToBase58 } from "@stablegate/tron/address";

export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface BenchDevnet {
  url: string;
  /** Further listeners on the same chain (--extra-port), each with its own faults. */
  extraUrls: string[];
  usdtContract: string;
  faucetAddress: string;
  faucetKey: string;
  post<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T>;
  info(): Promise<{
    head: number;
    solidified: number;
    requests: { total: number; by_path: Record<string, number> };
  }>;
  close(): Promise<void>;
}

export async function spawnDevnet(
  blockTimeMs: number,
  solidifyAfter = 19,
  extraListeners = 0,
): Promise<BenchDevnet> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(import.meta.dirname, "../packages/devnet/src/cli.ts"),
      "--port",
      "0",
      "--block-time-ms",
      String(blockTimeMs),
      "--solidify-after",
      String(solidifyAfter),
      "--quiet",
      ...Array.from({ length: extraListeners }, () => ["--extra-port", "0"]).flat(),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const ready = await new Promise<{
    url: string;
    usdt_contract: string;
    faucet_address: string;
    extra_urls?: string[];
  }>((resolve, reject) => {
    let buffer = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split("\n").find((l) => l.startsWith("devnet ready "));
      if (line) resolve(JSON.parse(line.slice("devnet ready ".length)));
    });
    child.once("exit", (code) => reject(new Error(`devnet exited with ${code}`)));
  });
  const post = async <T>(path: string, body: unknown = {}): Promise<T> => {
    const res = await fetch(ready.url + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  return {
    url: ready.url,
    extraUrls: ready.extra_urls ?? [],
    usdtContract: ready.usdt_contract,
    faucetAddress: ready.faucet_address,
    faucetKey: DEFAULT_FAUCET_KEY,
    post,
    info: async () => (await fetch(`${ready.url}/devnet/info`)).json() as never,
    close: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

export interface BenchContext {
  ctx: Context;
  dbName: string;
  close(): Promise<void>;
}

/** A bench's test-mode settings: fixed secrets and mnemonic, a throwaway DATA_DIR. */
export function benchBaseEnv(): Record<string, string> {
  return {
    NODE_ENV: "test",
    DATA_DIR: mkdtempSync(join(tmpdir(), "stablegate-bench-")),
    ADMIN_PASSWORD: "bench-admin-password",
    SESSION_SECRET: "bench-session-secret-0123456789abcdef0123456789",
    API_KEY_PEPPER: "bench-api-key-pepper-0123456789abcdef0123456789",
    WALLET_MNEMONIC:
      "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
  };
}

export async function benchContext(
  devnet: BenchDevnet,
  env: Record<string, string> = {},
): Promise<BenchContext> {
  const dbName = `sg_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 10 });
  await migrate(database);
  const config = loadConfig({
    ...benchBaseEnv(),
    TRON_NETWORK: "devnet",
    TRON_NODE_URL: devnet.url,
    USDT_CONTRACT: devnet.usdtContract,
    LOG_LEVEL: "silent",
    ...env,
  });
  const ctx = await createContext(config, { database, log: createLogger({ level: "silent" }) });
  return {
    ctx,
    dbName,
    async close() {
      await ctx.chain.close();
      await database.close();
      const dropper = new pg.Client({ connectionString: ADMIN_URL });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/** `count` pending orders, each with its own allocated address, inserted in bulk. */
export async function insertOrders(
  ctx: Context,
  count: number,
  amountMicro = 10_000_000n,
): Promise<string[]> {
  const merchantId = newId();
  const now = new Date();
  await ctx.database.session(async (s) => {
    await s.query(
      `INSERT INTO merchants (id, name, api_key_hash, api_key_prefix, webhook_secret, created_at, updated_at)
       VALUES ($1, 'Bench Shop', $2, 'sg_test_bench', 'bench-webhook-secret', $3, $3)`,
      [merchantId, randomBytes(16).toString("hex"), now],
    );
  });
  const addresses: string[] = [];
  for (let start = 0; start < count; start += 1000) {
    const n = Math.min(1000, count - start);
    const ids = Array.from({ length: n }, () => newId());
    const addrs = Array.from({ length: n }, () => hexToBase58(`41${randomBytes(20).toString("hex")}`));
    addresses.push(...addrs);
    await ctx.database.session((s) =>
      s.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO orders (id, merchant_id, external_id, amount_expected, network, status, address,
             callback_url, expires_at, created_at, updated_at)
           SELECT id, $1, 'bench-' || id, $2, 'devnet', 'pending', address, 'https://merchant.example.com/hook',
             $3::timestamptz + interval '1 day', $3, $3
           FROM unnest($4::uuid[], $5::text[]) AS u(id, address)`,
          [merchantId, amountMicro.toString(), now, ids, addrs],
        );
        await tx.query(
          `INSERT INTO addresses (derivation_index, address, status, order_id, allocated_at, created_at)
           SELECT $1 + ord - 1, address, 'allocated', id, $2, $2
           FROM unnest($3::uuid[], $4::text[]) WITH ORDINALITY AS u(id, address, ord)`,
          [start, now, ids, addrs],
        );
      }),
    );
  }
  return addresses;
}

/**
 * Confirmation latency after solidification, in ms, of every transfer confirmed so far: from the
 * moment its block entered the solidified chain (the devnet makes block n + solidifyAfter and
 * solidifies block n at the same instant, so that block's timestamp) to transfers.confirmed_at.
 * Reads block timestamps from the node: call it after any node-call count is taken.
 */
export async function confirmationLatencies(
  ctx: Context,
  nodeUrl: string,
  solidifyAfter = 19,
): Promise<number[]> {
  const rows = await ctx.database.session((s) =>
    s.query<{ block: string; confirmed_ms: string }>(
      `SELECT block_number::text AS block, (extract(epoch FROM confirmed_at) * 1000)::bigint::text AS confirmed_ms
       FROM transfers WHERE status = 'confirmed' AND confirmed_at IS NOT NULL`,
    ),
  );
  const stamps = new Map<number, number>();
  const out: number[] = [];
  for (const r of rows.rows) {
    const solidBlock = Number(r.block) + solidifyAfter;
    let ts = stamps.get(solidBlock);
    if (ts === undefined) {
      const res = await fetch(`${nodeUrl}/wallet/getblockbynum`, {
        method: "POST",
        body: JSON.stringify({ num: solidBlock }),
      });
      const block = (await res.json()) as { block_header?: { raw_data?: { timestamp?: number } } };
      ts = block.block_header?.raw_data?.timestamp ?? NaN;
      stamps.set(solidBlock, ts);
    }
    out.push(Number(r.confirmed_ms) - ts);
  }
  return out.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] as number;
}
