/**
 * One database handle for both engines: PostgreSQL (pg.Pool) when DATABASE_URL is set, PGlite (real
 * Postgres compiled to WASM, in-process) otherwise. Both speak the same SQL, so domain code never
 * branches on the engine; only locks and raw sessions differ, and they are hidden here.
 */
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import pg from "pg";
import * as schema from "./schema.js";
import { isDatabaseUnavailable } from "./database-error.js";
import { createPgliteDataDir, pgliteStartParams, useBaselineWasmCompiler } from "./pglite-bounds.js";

const ignoreConnectionError = (): void => undefined;

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** A function that runs queries accepts either the database or an open transaction. */
export type Executor = Db | Tx;

export interface RawSession {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /** Runs a script of several statements (no parameters). */
  exec(text: string): Promise<void>;
  /** Runs fn inside one transaction. */
  transaction<T>(fn: (session: RawSession) => Promise<T>): Promise<T>;
}

export interface HeldLock {
  release(): Promise<void>;
  /** Resolves when the lock is lost without release() (the connection died). */
  readonly lost: Promise<void>;
}

export interface Database {
  readonly kind: "postgres" | "pglite";
  readonly db: Db;
  /** How many statements can run at once: the pool size, or 1 for PGlite's single connection. */
  readonly maxConnections: number;
  /** Runs fn on one dedicated connection (for session-level advisory locks and migrations). */
  session<T>(fn: (session: RawSession) => Promise<T>): Promise<T>;
  /** Session-level advisory lock held until release() or until the holding connection dies. */
  tryLock(key: number): Promise<HeldLock | null>;
  /** Waits for the advisory lock, runs fn, releases it. */
  withLock<T>(key: number, fn: (session: RawSession) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  /** PGlite data directory; undefined = in memory. */
  dataDir?: string | undefined;
  poolSize?: number;
  /**
   * PostgreSQL: fail a pooled statement with no answer after this long (node-postgres
   * query_timeout; default none). The service processes set SERVICE_QUERY_TIMEOUT_MS so that a
   * server that froze or vanished behind a cut network cannot hold a request past the clients'
   * timeout; sessions and locks (migrations, the scanner lock) are exempt.
   */
  queryTimeoutMs?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10, options.queryTimeoutMs)
    : openPglite(options.dataDir);
}

/**
 * How long a statement may wait for a connection (a new one to the server, or a free one of the
 * pool) before it fails as unavailable: while PostgreSQL is unreachable an api request answers 503
 * within this bound instead of hanging, and a loop backs off.
 */
export const CONNECT_TIMEOUT_MS = 5_000;

/** The statement timeout of the service's pool: below the SDK's 30 s request timeout. */
export const SERVICE_QUERY_TIMEOUT_MS = 20_000;

/** Per-statement timeout of sessions and locks: no limit (a migration may take long). */
const NO_QUERY_TIMEOUT = 2 ** 31 - 1;

// node-postgres returns int8 and numeric as strings by default; keep that (no float ever), and let
// Drizzle's bigint-mode columns convert. timestamptz stays a Date.
async function openPostgres(
  url: string,
  poolSize: number,
  queryTimeoutMs: number | undefined,
): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(queryTimeoutMs === undefined ? {} : { query_timeout: queryTimeoutMs }),
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // A server that vanished without closing the socket (host down, network cut) is noticed by
    // TCP keepalive instead of never.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // A client whose connection dies emits 'error'; with no listener that is an uncaught exception
  // that ends the process. The pool listens only while a client is idle, so every client gets a
  // listener of its own for its whole life, checked out or not (sessions, locks, Drizzle's
  // transactions): the statement in flight fails with the error, and the pool discards the client
  // when it comes back (it is no longer queryable).
  pool.on("connect", (client) => {
    client.on("error", ignoreConnectionError);
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on("error", ignoreConnectionError);
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;

  // Statements of sessions and locks run without the pool's query timeout.
  const run = (client: pg.PoolClient, text: string, values?: unknown[]) =>
    client.query({ text, values, query_timeout: NO_QUERY_TIMEOUT } as pg.QueryConfig);
  const wrap = (client: pg.PoolClient): RawSession => ({
    query: async <R>(text: string, params?: unknown[]) => {
      const result = await run(client, text, params);
      return { rows: result.rows as R[] };
    },
    exec: async (text) => {
      await run(client, text);
    },
    transaction: async (fn) => {
      await run(client, "BEGIN");
      try {
        const value = await fn(wrap(client));
        await run(client, "COMMIT");
        return value;
      } catch (error) {
        await run(client, "ROLLBACK").catch(() => undefined);
        throw error;
      }
    },
  });

  return {
    kind: "postgres",
    db,
    maxConnections: poolSize,
    async session(fn) {
      const client = await pool.connect();
      let failure: Error | undefined;
      try {
        return await fn(wrap(client));
      } catch (error) {
        // A session that died with its connection is not handed out again.
        if (isDatabaseUnavailable(error)) failure = error as Error;
        throw error;
      } finally {
        client.release(failure);
      }
    },
    async tryLock(key) {
      const client = await pool.connect();
      // Listen before the first statement: the connection may die while the lock is being taken.
      let markLost: () => void = () => undefined;
      const lost = new Promise<void>((resolve) => (markLost = resolve));
      let dead = false;
      const onGone = () => {
        dead = true;
        markLost();
      };
      client.on("error", onGone);
      client.on("end", onGone);
      const detach = () => {
        client.off("error", onGone);
        client.off("end", onGone);
      };
      let ok = false;
      try {
        const { rows } = (await run(client, "SELECT pg_try_advisory_lock($1) AS locked", [key])) as {
          rows: { locked: boolean }[];
        };
        ok = rows[0]?.locked === true;
      } catch (error) {
        detach();
        client.release(error as Error);
        throw error;
      }
      if (!ok) {
        detach();
        client.release();
        return null;
      }
      let released = false;
      return {
        lost,
        async release() {
          if (released) return;
          released = true;
          // The lock died with its connection: nothing to unlock, and the client is discarded.
          // (The client keeps the pool-wide 'error' listener, so a late 'end' cannot crash us.)
          if (dead) {
            detach();
            client.release(new Error("lock connection closed"));
            return;
          }
          try {
            await run(client, "SELECT pg_advisory_unlock($1)", [key]);
            detach();
            client.release();
          } catch (error) {
            detach();
            // Closing the connection frees a session lock the unlock could not.
            client.release(error as Error);
          }
        },
      };
    },
    async withLock(key, fn) {
      const client = await pool.connect();
      let failure: Error | undefined;
      try {
        await run(client, "SELECT pg_advisory_lock($1)", [key]);
        let value: Awaited<ReturnType<typeof fn>>;
        try {
          value = await fn(wrap(client));
        } catch (error) {
          // Unlock best effort; a failed unlock discards the connection, which frees the lock.
          await run(client, "SELECT pg_advisory_unlock($1)", [key]).catch((unlockError: unknown) => {
            failure = unlockError as Error;
          });
          throw error;
        }
        try {
          await run(client, "SELECT pg_advisory_unlock($1)", [key]);
        } catch (error) {
          failure = error as Error;
          throw error;
        }
        return value;
      } catch (error) {
        if (isDatabaseUnavailable(error)) failure ??= error as Error;
        throw error;
      } finally {
        client.release(failure);
      }
    },
    async ping() {
      await pool.query("SELECT 1");
    },
    async close() {
      // Idempotent like the PGlite branch: a second close (shutdown after a failed start) is a no-op.
      if (!pool.ended) await pool.end();
    },
  };
}

async function openPglite(dataDir: string | undefined): Promise<Database> {
  // Loaded only for the embedded engine: a PostgreSQL process never loads PGlite or its driver
  // (start-up time and memory, docs/deploy.md).
  // Before the import: PGlite's WebAssembly compiles on the baseline tier only (pglite-bounds.ts).
  useBaselineWasmCompiler();
  const [{ PGlite }, { drizzle: drizzlePglite }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("drizzle-orm/pglite"),
  ]);
  const startParams = pgliteStartParams(PGlite.defaultStartParams);
  if (dataDir) await createPgliteDataDir(dataDir, startParams);
  const client = dataDir ? new PGlite(dataDir, { startParams }) : new PGlite({ startParams });
  await client.waitReady;
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  // PGlite is one connection in one process, so advisory locks are tracked here instead.
  const held = new Set<number>();
  const raw: RawSession = {
    query: async <R>(text: string, params?: unknown[]) => {
      const result = await client.query<R>(text, params);
      return { rows: result.rows };
    },
    exec: async (text) => {
      await client.exec(text);
    },
    transaction: (fn) =>
      client.transaction((tx) =>
        fn({
          query: async <R>(text: string, params?: unknown[]) => ({
            rows: (await tx.query<R>(text, params)).rows,
          }),
          exec: async (text: string) => {
            await tx.exec(text);
          },
          transaction: () => Promise.reject(new Error("nested transactions are not supported")),
        }),
      ),
  };
  const waiters = new Map<number, (() => void)[]>();
  const acquire = async (key: number) => {
    while (held.has(key)) {
      await new Promise<void>((resolve) => waiters.set(key, [...(waiters.get(key) ?? []), resolve]));
    }
    held.add(key);
  };
  const release = (key: number) => {
    held.delete(key);
    const next = waiters.get(key)?.shift();
    next?.();
  };
  return {
    kind: "pglite",
    db,
    maxConnections: 1,
    session: (fn) => fn(raw),
    async tryLock(key) {
      if (held.has(key)) return null;
      held.add(key);
      let released = false;
      return {
        lost: new Promise<void>(() => undefined),
        async release() {
          if (released) return;
          released = true;
          release(key);
        },
      };
    },
    async withLock(key, fn) {
      await acquire(key);
      try {
        return await fn(raw);
      } finally {
        release(key);
      }
    },
    async ping() {
      await client.query("SELECT 1");
    },
    async close() {
      if (!client.closed) await client.close();
    },
  };
}
