/**
 * Everything a domain function or worker needs, passed in explicitly: createOrder(ctx, input).
 * No module reaches for a global pool, clock or logger, or keeps state of its own between calls:
 * what a process remembers lives in ctx.local.
 */
import type { Config } from "./config.js";
import { createChains, type ChainAccess } from "./chains/create-chains.js";
import type { ChainRegistry } from "./chains/registry.js";
import type { Clock } from "./clock.js";
import { systemClock } from "./clock.js";
import type { Database, Db } from "./db/connection.js";
import { openDatabase, SERVICE_QUERY_TIMEOUT_MS } from "./db/connection.js";
import { migrate } from "./db/migrate.js";
import { retryWhileUnavailable } from "./db/wait-for-database.js";
import type { Logger } from "./logger.js";
import { LocalState } from "./local-state.js";
import { createLogger } from "./logger.js";
import { createMetrics, type Metrics } from "./metrics/metrics.js";
import { join } from "node:path";

export interface Context {
  readonly config: Config;
  readonly database: Database;
  readonly db: Db;
  readonly log: Logger;
  readonly clock: Clock;
  /**
   * The enabled chains behind the chain boundary (src/chains/): what scanning, confirmation, the
   * address pool and payments use. Creating them never connects.
   */
  readonly chains: ChainRegistry;
  /**
   * TRON's node client and USDT contract, the same nodes as ctx.chains' tron: sweeps and payouts
   * sign and broadcast through it until sending moves behind the boundary.
   */
  readonly chain: ChainAccess;
  /** This process's Prometheus registry and metric families. */
  readonly metrics: Metrics;
  /**
   * This process's caches, batchers, claim floors and rate windows (local-state.ts): one object,
   * shared by every context spread from this one, such as a request's.
   */
  readonly local: LocalState;
}

export interface ContextOptions {
  log?: Logger;
  clock?: Clock;
  /** An already open (and migrated) database, e.g. from the test helper. */
  database?: Database;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  /** A chain access of the caller's (tests, benchmarks); default: one from config.tronNodeUrl. */
  chain?: ChainAccess;
  /** Default: a fresh registry with the default process metrics. */
  metrics?: Metrics;
  /** How long to wait for an unreachable database at start-up (default: as long as it takes). */
  databaseWaitMs?: number;
  /** The process role, exported as stablegate_info{role}. */
  role?: string;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<Context> {
  const log = options.log ?? createLogger({ level: config.logLevel });
  const database =
    options.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: join(config.dataDir, "pglite"),
      queryTimeoutMs: SERVICE_QUERY_TIMEOUT_MS,
    }));
  if (!options.database) {
    // A database that is down at start-up is waited for (logged, with backoff), not a reason to exit.
    try {
      await retryWhileUnavailable(
        "start-up",
        async () => {
          if (options.migrate === false) return database.ping();
          const applied = await migrate(database);
          if (applied.length > 0) log.info({ applied }, "migrations applied");
        },
        { log, timeoutMs: options.databaseWaitMs },
      );
    } catch (error) {
      await database.close();
      throw error;
    }
  }
  const clock = options.clock ?? systemClock;
  const metrics = options.metrics ?? createMetrics({ role: options.role, now: () => clock.now().getTime() });
  const chains = createChains(config, { log, metrics, clock, tron: options.chain });
  return {
    config,
    database,
    db: database.db,
    log,
    clock,
    chains: chains.registry,
    chain: chains.tron,
    metrics,
    local: new LocalState(),
  };
}
