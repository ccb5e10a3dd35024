/**
 * Shared set-up of the admin benchmarks (operator-auth, step-up): the real app on PGlite in memory
 * or BENCH_DATABASE_URL, a clock the bench steps (a TOTP code works once per 30-second step), client
 * addresses that never repeat (the login rate limit is per address), and the latency report.
 */
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { openDatabase } from "../src/db/connection.js";
import { migrate } from "../src/db/migrate.js";
import { buildApp } from "../src/http/app.js";
import { createLogger } from "../src/logger.js";

export class BenchClock {
  private at = Date.now();
  now(): Date {
    return new Date(this.at);
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

/** One line: the label padded to `width`, then p50, p99, max and the count. */
export function report(label: string, samples: number[], width = 48): void {
  console.log(
    `${label.padEnd(width)} p50 ${fmt(percentile(samples, 50))}  p99 ${fmt(percentile(samples, 99))}  max ${fmt(Math.max(...samples))}  (n=${samples.length})`,
  );
}

/** The app as shipped over a migrated database; prints which database and the load average. */
export async function startAdminApp(dataDirPrefix: string, env: Record<string, string> = {}) {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: mkdtempSync(join(tmpdir(), dataDirPrefix)),
    ADMIN_PASSWORD: "bench owner password 0123",
    SESSION_SECRET: "bench-session-secret-0123456789abcdef0123456789",
    API_KEY_PEPPER: "bench-api-key-pepper-0123456789abcdef0123456789",
    WALLET_MNEMONIC:
      "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
    TRON_NETWORK: "devnet",
    TRON_NODE_URL: "http://127.0.0.1:1",
    USDT_CONTRACT: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    LOG_LEVEL: "silent",
    ...env,
  });
  const url = process.env.BENCH_DATABASE_URL;
  const database = await openDatabase({ databaseUrl: url });
  await migrate(database);
  const clock = new BenchClock();
  const ctx = await createContext(config, { database, clock, log: createLogger({ level: "silent" }) });
  const app = await buildApp(ctx);
  await app.ready();
  console.log(
    `database: ${url ? "PostgreSQL" : "PGlite (in memory)"}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  let ip = 0;
  const nextIp = () => `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip++ & 255}`;
  const close = async () => {
    await app.close();
    await database.close();
  };
  return { config, database, clock, ctx, app, nextIp, close };
}
