import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import * as schema from "../../src/db/schema.js";
import { loadMigrations, migrate } from "../../src/db/migrate.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb.drop();
});

describe("migrations", () => {
  it("records every migration and applies nothing the second time", async () => {
    const { rows } = await testDb.database.session((s) =>
      s.query<{ name: string }>("SELECT name FROM schema_migrations ORDER BY name"),
    );
    expect(rows.map((row) => row.name)).toEqual(loadMigrations().map((m) => m.name));
    expect(await migrate(testDb.database)).toEqual([]);
  });

  it("two migrators started together apply each migration exactly once", async () => {
    const results = await Promise.all([migrate(testDb.database), migrate(testDb.database)]);
    expect(results.flat()).toEqual([]);
    const { rows } = await testDb.database.session((s) =>
      s.query<{ n: string }>("SELECT count(*)::text AS n FROM schema_migrations"),
    );
    expect(Number(rows[0]?.n)).toBe(loadMigrations().length);
  });

  it("has every column the Drizzle schema declares", async () => {
    const { rows } = await testDb.database.session((s) =>
      s.query<{ table_name: string; column_name: string }>(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'",
      ),
    );
    const actual = new Set(rows.map((row) => `${row.table_name}.${row.column_name}`));
    const tables: unknown[] = Object.values(schema).filter((value) => value instanceof PgTable);
    expect(tables.length).toBeGreaterThanOrEqual(11);
    for (const table of tables) {
      const { name, columns } = getTableConfig(table as PgTable);
      for (const column of columns) {
        expect(actual, `${name}.${column.name}`).toContain(`${name}.${column.name}`);
      }
    }
  });
});
