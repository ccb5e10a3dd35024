/**
 * Each test file gets its own fresh database: on PostgreSQL (TEST_DATABASE_URL set) a clone of a
 * migrated template database, created once per migration set; otherwise a fresh in-memory PGlite.
 *
 * Before a database is dropped, `stablegate verify-audit`'s check runs over it: whatever the test
 * file did (logins, merchant and operator actions, payouts, resolutions), its audit chain must still
 * verify, so the whole suite is a proof that nothing in the code edits or forges an audit row.
 */
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import pg from "pg";
import { verifyAudit } from "../../src/audit/verify-audit.js";
import { openDatabase, type Database } from "../../src/db/connection.js";
import { loadMigrations, migrate } from "../../src/db/migrate.js";

export interface TestDatabase {
  database: Database;
  /** PostgreSQL URL of this database; undefined on PGlite. */
  url: string | undefined;
  drop(): Promise<void>;
}

const TEMPLATE_LOCK = 740_199_001;

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function ensureTemplate(adminUrl: string): Promise<string> {
  const migrations = loadMigrations();
  const hash = createHash("sha256")
    .update(migrations.map((m) => `${m.name}\n${m.sql}`).join("\n"))
    .digest("hex")
    .slice(0, 12);
  const template = `sg_template_${hash}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
    if (!rowCount) {
      const building = `${template}_build`;
      await admin.query(`DROP DATABASE IF EXISTS ${building}`);
      await admin.query(`CREATE DATABASE ${building}`);
      const database = await openDatabase({ databaseUrl: withDatabaseName(adminUrl, building), poolSize: 1 });
      try {
        await migrate(database, migrations);
      } finally {
        await database.close();
      }
      // Renamed only when complete, so a crash mid-build never leaves a half-migrated template.
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    }
    await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]);
  } finally {
    await admin.end();
  }
  return template;
}

/**
 * The audit chain of a test database verifies (DESIGN.md 12), or the file fails naming the row.
 * With TEST_AUDIT_TALLY=<file>, each verified database appends "<rows>" to that file.
 */
async function assertAuditChainIntact(database: Database, name: string): Promise<void> {
  const result = await verifyAudit(database.db);
  if (result.broken) {
    throw new Error(
      `audit chain of test database ${name} broken at row seq ${result.broken.seq} (id ${result.broken.id}): ${result.broken.reason}`,
    );
  }
  const tally = process.env.TEST_AUDIT_TALLY;
  if (tally) appendFileSync(tally, `${result.rows}\n`);
}

/** Records whether a test closed its database itself (a test of the database being gone). */
function trackClose(database: Database): { closed: boolean } {
  const state = { closed: false };
  const close = database.close.bind(database);
  database.close = async () => {
    state.closed = true;
    await close();
  };
  return state;
}

export async function createTestDatabase(options: { poolSize?: number } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const database = await openDatabase({});
    await migrate(database);
    const state = trackClose(database);
    return {
      database,
      url: undefined,
      async drop() {
        // An in-memory database the test closed itself is gone, with nothing left to verify.
        if (state.closed) return;
        try {
          await assertAuditChainIntact(database, "PGlite");
        } finally {
          await database.close();
        }
      },
    };
  }
  const template = await ensureTemplate(adminUrl);
  const name = `sg_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = withDatabaseName(adminUrl, name);
  const database = await openDatabase({ databaseUrl: url, poolSize: options.poolSize ?? 10 });
  return {
    database,
    url,
    async drop() {
      // Verified first over a connection of its own, as `stablegate verify-audit` does (the test may
      // have closed its pool), but dropped whatever the verdict: a broken chain fails the file, and
      // leaves nothing behind.
      await database.close();
      const failure = await (async () => {
        const verifier = await openDatabase({ databaseUrl: url, poolSize: 1 });
        try {
          await assertAuditChainIntact(verifier, name);
        } finally {
          await verifier.close();
        }
      })().then(
        () => undefined,
        (error: unknown) => error,
      );
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
      if (failure) throw failure;
    },
  };
}
