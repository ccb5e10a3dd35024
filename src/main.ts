/**
 * The stablegate command: every verb of COMMANDS (src/commands.ts) and nothing else, each run by its
 * entry of RUN. `serve [--role all|api|worker]` runs the service; the others do one job and exit.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { openDatabase } from "./db/connection.js";
import { migrate } from "./db/migrate.js";
import { isCommand, ROLES, USAGE, type Command, type Role } from "./commands.js";
import { runCheckRollups } from "./stats/run-check-rollups.js";
import { runVerifyAudit } from "./audit/run-verify-audit.js";
import { runCheckLedger } from "./ledger/run-check-ledger.js";
import { startService } from "./server.js";
import { DEMO_FINALITY_DEPTH, type EmbeddedEvmDevnet } from "./chains/embedded-devnets.js";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** A command's run: its exit code, or -1 to keep the process running (serve). */
type Run = (args: string[]) => Promise<number>;

/** Typed by Command, so a verb of the list without a run, or a run of no verb, does not compile. */
const RUN: Record<Command, Run> = {
  serve: (args) => serve(configFromEnvironment(), args),
  migrate: () => runMigrate(configFromEnvironment()),
  "check-rollups": () => runCheckRollups(configFromEnvironment()),
  "verify-audit": (args) => runVerifyAudit(configFromEnvironment(), args),
  "check-ledger": () => runCheckLedger(configFromEnvironment()),
  help: async () => {
    process.stdout.write(USAGE);
    return 0;
  },
};

async function main(argv: string[]): Promise<number> {
  const [given, ...rest] = argv;
  if (given === undefined) {
    process.stdout.write(USAGE);
    return 1;
  }
  const command = given === "--help" ? "help" : given;
  if (!isCommand(command)) {
    process.stderr.write(`unknown command "${given}"\n${USAGE}`);
    return 1;
  }
  return RUN[command](rest);
}

/** A .env file fills in what the real environment does not set (operators' variables win). */
function configFromEnvironment(): Config {
  if (existsSync(".env")) process.loadEnvFile(".env");
  return loadConfigOrExit();
}

async function runMigrate(config: Config): Promise<number> {
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

async function serve(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { role: { type: "string", default: "all" } } });
  const role = values.role as Role;
  if (!(ROLES as readonly string[]).includes(role)) {
    process.stderr.write(`unknown role "${role}"; use all, api or worker\n`);
    return 1;
  }
  // Signals are taken from the start: one that arrives while the service starts stops it once it
  // has started, and a second one during shutdown is not the default action that kills mid-stop.
  const signals: { requested?: string; shutdown?: (signal: string) => void } = {};
  const onSignal = (signal: string) => {
    if (signals.shutdown) signals.shutdown(signal);
    else signals.requested ??= signal;
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  const started = performance.now();
  const service = await startService(config, role);
  printBanner(config, role, service.url, performance.now() - started);
  if (service.devnet) printDevnetHint(service.ctx.config, service.devnet, service.evmDevnets);
  let stopping = false;
  signals.shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.ctx.log.info({ signal }, "shutting down");
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        service.ctx.log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  if (signals.requested) signals.shutdown(signals.requested);
  return -1;
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
function printDevnetHint(
  config: Config,
  devnet: { url: string; usdtContract: string },
  evm: readonly EmbeddedEvmDevnet[],
): void {
  const lines = [
    `  devnet (in-process): ${devnet.url}   USDT ${devnet.usdtContract}`,
    `  ${config.confirmations} confirmations at ~${config.devnet.blockTimeMs} ms per block; state in ${config.dataDir}`,
    ...evm.map(
      (e) =>
        `  ${e.chain} devnet (Anvil): ${e.devnet.rpcUrl}   chain id ${e.devnet.chainId}; final ${DEMO_FINALITY_DEPTH} blocks behind the head`,
    ),
    `  pay an order:     npm run demo:pay -- <order_id> [amount]   (on the order's own chain)`,
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
