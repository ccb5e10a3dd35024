/**
 * Applies migrations/NNNN_name.sql in order, each in its own transaction, under an advisory lock so
 * that two processes starting together never race.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "./connection.js";
import { LOCK_KEYS } from "./locks.js";

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "migrations");

export interface Migration {
  name: string;
  sql: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ name: file.replace(/\.sql$/, ""), sql: readFileSync(join(dir, file), "utf8") }));
}

/** Returns the names of the migrations applied by this call. */
export async function migrate(database: Database, migrations = loadMigrations()): Promise<string[]> {
  return database.withLock(LOCK_KEYS.migrations, async (session) => {
    await session.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const { rows } = await session.query<{ name: string }>("SELECT name FROM schema_migrations");
    const done = new Set(rows.map((row) => row.name));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      await session.transaction(async (tx) => {
        await tx.exec(migration.sql);
        await tx.query("INSERT INTO schema_migrations (name) VALUES ($1)", [migration.name]);
      });
      applied.push(migration.name);
    }
    return applied;
  });
}
