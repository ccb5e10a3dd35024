import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";

// Statement triggers that pair old and new rows must not keep a nested-loop plan cached from a
// small statement: the session's next large statement would compare every old row with every new
// one (minutes for tens of thousands of rows). Migration 0014.
let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase({ poolSize: 2 });
});
afterAll(async () => {
  await testDb.drop();
});

describe("statement triggers over transition tables", () => {
  it("every trigger function that joins old and new rows plans without nested loops", async () => {
    const { rows } = await testDb.database.session((s) =>
      s.query<{ proname: string; proconfig: string[] | null }>(
        `SELECT proname, proconfig FROM pg_proc
         WHERE prorettype = 'trigger'::regtype AND prosrc ~ 'JOIN\\s+new_'`,
      ),
    );
    expect(rows.map((r) => r.proname).sort()).toEqual([
      "address_pool_on_update",
      "deposit_rollups_on_update",
      "order_rollups_on_update",
    ]);
    for (const row of rows) expect(row.proconfig, row.proname).toContain("enable_nestloop=off");
  });

  it("a 20,000-row update after a one-row update in the same session keeps the pool counts in seconds", async () => {
    const n = 20_000;
    const counts = await testDb.database.session(async (s) => {
      await s.query(
        `INSERT INTO addresses (derivation_index, address, status, created_at)
         SELECT 1000000 + i, 'TPlanTest' || lpad(i::text, 25, '0'), 'free', now()
         FROM generate_series(0, $1::int - 1) AS i`,
        [n],
      );
      const free = async () =>
        Number(
          (await s.query<{ free: string }>("SELECT sum(free)::text AS free FROM address_pool_counts")).rows[0]
            ?.free,
        );
      const before = await free();
      // The first statement of the session caches the trigger's plan on a one-row transition table.
      await s.query(
        "UPDATE addresses SET status = 'allocated', allocated_at = now() WHERE derivation_index = 1000000",
      );
      // Without the fix this statement takes over a minute (nested loop: n x n row pairs).
      await s.query("SET statement_timeout = '30s'");
      await s.query(
        "UPDATE addresses SET status = 'allocated', allocated_at = now() WHERE derivation_index > 1000000",
      );
      await s.query("RESET statement_timeout");
      return { before, after: await free() };
    });
    expect(counts.before - counts.after).toBe(n);
  }, 120_000);
});
