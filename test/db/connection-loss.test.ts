/**
 * A PostgreSQL connection that dies while checked out of the pool never becomes an uncaught
 * 'error' event: the scanner lock (tryLock, whose release used to drop its listener and
 * then query the dead connection), a session, withLock and a Drizzle transaction each see their
 * statement fail, and the pool serves fresh connections afterwards. A frozen server (SIGSTOP: the
 * sockets stay open and nothing answers) ends statements at the pool's query timeout, and a stopped
 * one fails them at once. Runs on a throwaway cluster of
 * its own (pg_terminate_backend kills one connection at a time), whatever TEST_DATABASE_URL says.
 */
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONNECT_TIMEOUT_MS, openDatabase, type Database } from "../../src/db/connection.js";
import { isDatabaseUnavailable } from "../../src/db/database-error.js";
import { createPgCluster, type PgCluster } from "../helpers/pg-cluster.js";

let cluster: PgCluster;
let database: Database;
let admin: pg.Client;
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);

beforeAll(async () => {
  cluster = await createPgCluster();
  database = await openDatabase({ databaseUrl: cluster.url(), poolSize: 4 });
  admin = new pg.Client({ connectionString: cluster.url() });
  await admin.connect();
  process.on("uncaughtException", onUncaught);
}, 60_000);

afterAll(async () => {
  process.off("uncaughtException", onUncaught);
  await admin?.end();
  await database?.close();
  await cluster?.destroy();
});

/** Kills every other backend of the cluster except the admin's, as a crash of their server process would. */
async function terminateOthers(): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
     WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'`,
  );
  return rows[0]?.n ?? 0;
}

/** Gives the dead sockets' 'error' and 'end' events time to arrive. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe("a connection dying while checked out", () => {
  it("the scanner lock: lost resolves, release() right away neither throws nor crashes, the lock is free", async () => {
    const lock = await database.tryLock(4242);
    expect(lock).not.toBeNull();
    expect(await terminateOthers()).toBeGreaterThan(0);
    await lock!.lost;
    // As the scanner leader does: release as soon as the loss is seen, before the socket's 'end'.
    await lock!.release();
    await settle();
    const again = await database.tryLock(4242);
    expect(again).not.toBeNull();
    await again!.release();
    expect(uncaught).toEqual([]);
  });

  it("a session, withLock and a Drizzle transaction fail their statement instead of crashing", async () => {
    const session = database.session(async (s) => {
      await s.query("SELECT 1");
      await terminateOthers();
      await settle();
      return s.query("SELECT 2");
    });
    await expect(session).rejects.toSatisfy(isDatabaseUnavailable);

    const locked = database.withLock(4343, async (s) => {
      await terminateOthers();
      await settle();
      return s.query("SELECT 3");
    });
    await expect(locked).rejects.toSatisfy(isDatabaseUnavailable);

    const transaction = database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT 4`);
      await terminateOthers();
      await settle();
      await tx.execute(sql`SELECT 5`);
    });
    await expect(transaction).rejects.toBeTruthy();
    await settle();
    expect(uncaught).toEqual([]);
    // The pool discarded the dead connections and serves new ones.
    await database.ping();
    expect(await database.session((s) => s.query<{ n: number }>("SELECT 6 AS n"))).toEqual({
      rows: [{ n: 6 }],
    });
    const lock = await database.tryLock(4343);
    expect(lock).not.toBeNull();
    await lock!.release();
  });

  it("a frozen server (no answer, no FIN): statements end at the query timeout as unavailable", async () => {
    const frozen = await openDatabase({ databaseUrl: cluster.url(), poolSize: 2, queryTimeoutMs: 1_500 });
    try {
      await frozen.ping();
      cluster.signal("SIGSTOP");
      const started = performance.now();
      try {
        await expect(frozen.ping()).rejects.toSatisfy(isDatabaseUnavailable);
        await expect(frozen.db.execute(sql`SELECT 7`)).rejects.toSatisfy(isDatabaseUnavailable);
        expect(performance.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS + 3_000);
      } finally {
        cluster.signal("SIGCONT");
      }
      await frozen.ping();
      expect(uncaught).toEqual([]);
    } finally {
      await frozen.close();
    }
  }, 60_000);

  it("a stopped server: statements fail fast as unavailable, and work again after it starts", async () => {
    await admin.end();
    await cluster.stop("immediate");
    const started = performance.now();
    await expect(database.ping()).rejects.toSatisfy(isDatabaseUnavailable);
    await expect(database.tryLock(4444)).rejects.toSatisfy(isDatabaseUnavailable);
    expect(performance.now() - started).toBeLessThan(6_000);
    await cluster.start();
    admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await database.ping();
    await settle();
    expect(uncaught).toEqual([]);
  }, 60_000);
});
