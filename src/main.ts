/**
 * The stablegate command: `serve [--role all|api|worker]`, `migrate`, `check-rollups` and
 * `verify-audit`.
 * `check-ledger`.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { openDatabase } from "./db/connection.js";
import { migrate } from "./db/migrate.js";
import { ROLES, type Role } from "./commands.js";
import { runCheckRollups } from "./stats/run-check-rollups.js";
import { runVerifyAudit } from "./audit/run-verify-audit.js";
import { runCheckLedger } from "./ledger/run-check-ledger.js";
import { startService } from "./server.js";
import { existsSync } from "node:fs";
import { join } from "node:path";

const USAGE = `usage: stablegate <command>

commands:
  serve [--role all|api|worker]   run the service (default role: all)
  migrate                         apply pending database migrations and exit
  check-rollups                   recount the admin rollups; exit 1 if any counter differs
  verify-audit                    recompute the audit log's hash chain; exit 1 naming the first broken row
  check-ledger                    prove the merchant ledger balances and matches orders, refunds
                                  and payouts; print the differences and exit 1 if any
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help") {
    process.stdout.write(USAGE);
    return command === undefined ? 1 : 0;
  }
  // A .env file fills in what the real environment does not set (operators' variables win).
  if (existsSync(".env")) process.loadEnvFile(".env");
  const config = loadConfigOrExit();
  if (command === "migrate") {
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: join(config.dataDir, "pglite"),
    });
    try {
      const applied = await migrate(database);
      process.stdout.write(applied.length ? `applied: ${applied.join(", ")}\n` : "database is up to date\n");
    } finally {
      await database.close();
    }
    return 0;
  }
  if (command === "check-rollups") return runCheckRollups(config);
  if (command === "verify-audit") return runVerifyAudit(config);
  if (command === "check-ledger") return runCheckLedger(config);
  if (command === "serve") {
    const { values } = parseArgs({ args: rest, options: { role: { type: "string", default: "all" } } });
    const role = values.role as Role;
    if (!(ROLES as readonly string[]).includes(role)) {
      process.stderr.write(`unknown role "${role}"; use all, api or worker\n`);
      return 1;
    }
    const started = performance.now();
    const service = await startService(config, role);
    printBanner(config, role, service.url, performance.now() - started);
    if (service.devnet) printDevnetHint(service.ctx.config, service.devnet);
    const shutdown = (signal: string) => {
      service.ctx.log.info({ signal }, "shutting down");
      service.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          service.ctx.log.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
    };
    process.once("SIGTERM", () => shutdown("SIGTERM"));
    process.once("SIGINT", () => shutdown("SIGINT"));
    return -1;
  }
  process.stderr.write(`unknown command "${command}"\n${USAGE}`);
  return 1;
}

function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

function printBanner(config: Config, role: Role, url: string | undefined, startupMs: number): void {
  const lines = [
    `stablegate ready in ${Math.round(startupMs)} ms (role ${role}, network ${config.tronNetwork})`,
  ];
  if (url && role === "worker") lines.push(`  metrics, health:  ${url}/metrics, ${url}/api/v1/health`);
  if (url && role !== "worker") {
    lines.push(`  dashboard:       ${config.publicBaseUrl}/admin`);
    lines.push(`  admin API:       ${config.publicBaseUrl}/api/v1/admin`);
  }
  // Only a password the service generated itself is ever printed, never one the operator supplied.
  if (url && role !== "worker" && config.adminPasswordGenerated) {
    lines.push(
      `  admin password:  ${config.adminPassword}   (generated, kept in ${config.dataDir}/secrets.json)`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** The embedded demo chain: where it listens and how to pay an order on it. */
function printDevnetHint(config: Config, devnet: { url: string; usdtContract: string }): void {
  const lines = [
    `  devnet (in-process): ${devnet.url}   USDT ${devnet.usdtContract}`,
    `  ${config.confirmations} confirmations at ~${config.devnet.blockTimeMs} ms per block; state in ${config.dataDir}`,
    `  pay an order:     npm run demo:pay -- <order_id> [amount]`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    // Role checks (checkSweeperSecrets) run at start-up, after the configuration was loaded.
    if (error instanceof ConfigError) process.stderr.write(`configuration error: ${error.message}\n`);
    else
      process.stderr.write(
        `stablegate failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    process.exit(1);
  },
);
