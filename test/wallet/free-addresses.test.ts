/**
 * The list of free addresses (free_addresses, migration 0016): claims read it instead of
 * a partial index of `addresses`, so binding a claimed address changes no indexed column of
 * `addresses` and is a HOT update, and the pool triggers keep the list equal to the addresses whose
 * status is 'free' through every way an address enters or leaves the pool.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeDatabaseError } from "../../src/db/database-error.js";
import { queryRows } from "../../src/db/query-rows.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { claimFreeAddresses } from "../../src/wallet/free-addresses.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** Inserts `count` free addresses at the next indexes of the pool's chain; returns the first. */
async function addFree(count: number, prefix: string): Promise<number> {
  const [row] = await queryRows<{ start: number }>(
    t.ctx.db,
    sql`UPDATE address_pool_state SET next_index = next_index + ${count}::int
        RETURNING next_index - ${count}::int AS start`,
  );
  const start = Number(row?.start ?? 0);
  await queryRows(
    t.ctx.db,
    sql`INSERT INTO addresses (derivation_index, address, status, created_at)
        SELECT ${start}::int + i, ${prefix}::text || i, 'free', now() FROM generate_series(0, ${count}::int - 1) AS i`,
  );
  return start;
}

async function listed(from: number, to: number): Promise<number[]> {
  const rows = await queryRows<{ derivation_index: number }>(
    t.ctx.db,
    sql`SELECT derivation_index FROM free_addresses
        WHERE derivation_index >= ${from} AND derivation_index < ${to} ORDER BY 1`,
  );
  return rows.map((row) => Number(row.derivation_index));
}

const freeListDifferences = async () =>
  (await checkRollups(t.ctx.db)).filter((d) => d.table === "free_addresses");

describe("the list of free addresses", () => {
  it("follows the addresses' status through insert, claim, release and delete", async () => {
    const start = await addFree(4, "TListFollows");
    expect(await listed(start, start + 4)).toEqual([start, start + 1, start + 2, start + 3]);

    // A claim (free -> allocated) takes the address off the list in the same statement.
    await queryRows(
      t.ctx.db,
      sql`UPDATE addresses SET status = 'allocated', allocated_at = now()
          WHERE derivation_index IN (${start}, ${start + 2})`,
    );
    expect(await listed(start, start + 4)).toEqual([start + 1, start + 3]);

    // A release (allocated -> free) puts it back; an update that keeps it free changes nothing.
    await queryRows(
      t.ctx.db,
      sql`UPDATE addresses SET status = 'free', released_at = now() WHERE derivation_index = ${start}`,
    );
    await queryRows(
      t.ctx.db,
      sql`UPDATE addresses SET created_at = now() WHERE derivation_index = ${start + 1}`,
    );
    expect(await listed(start, start + 4)).toEqual([start, start + 1, start + 3]);

    // A deleted free address leaves the list.
    await queryRows(t.ctx.db, sql`DELETE FROM addresses WHERE derivation_index >= ${start}`);
    expect(await listed(start, start + 4)).toEqual([]);
    expect(await freeListDifferences()).toEqual([]);
  });

  it("is checked by check-rollups against the addresses' status", async () => {
    const start = await addFree(3, "TListChecked");
    await queryRows(t.ctx.db, sql`DELETE FROM free_addresses WHERE derivation_index = ${start}`);
    await queryRows(
      t.ctx.db,
      sql`INSERT INTO free_addresses (derivation_index, address_id, address)
          SELECT ${start + 10}, id, 'TNotAFreeAddress' FROM addresses WHERE derivation_index = ${start + 1}`,
    );
    expect(await freeListDifferences()).toEqual([
      { table: "free_addresses", key: { pool: "free list" }, stored: ["1", "1"], actual: ["0", "0"] },
    ]);
    await queryRows(t.ctx.db, sql`DELETE FROM free_addresses WHERE derivation_index = ${start + 10}`);
    await queryRows(
      t.ctx.db,
      sql`INSERT INTO free_addresses (derivation_index, address_id, address)
          SELECT derivation_index, id, address FROM addresses WHERE derivation_index = ${start}`,
    );
    expect(await freeListDifferences()).toEqual([]);
  });

  it("is read in index order from the floor, however stale the statistics of addresses", async () => {
    const start = await addFree(20_000, "TClaimPlan");
    const plan = await t.ctx.database.session(async (s) => {
      await s.exec(`ANALYZE addresses; ANALYZE free_addresses;`);
      await s.query(
        "UPDATE addresses SET status = 'allocated' WHERE derivation_index >= $1 AND derivation_index < $2",
        [start, start + 15_000],
      );
      const { rows } = await s.query<{ "QUERY PLAN": string }>(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${claimFreeAddresses(String(start + 15_000))} LIMIT 5 FOR UPDATE SKIP LOCKED`,
      );
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    expect(plan).toContain("Index Scan using free_addresses_pkey");
    expect(plan).toContain("Index Scan using addresses_pkey");
    // Never a walk of `addresses` that filters out the 15,000 allocated addresses.
    expect(plan).not.toMatch(/Rows Removed by Filter: [1-9]/);
    expect(plan).not.toContain("Seq Scan on addresses");
  });

  it("leaves addresses no index over a column a claim, release or hold changes", async () => {
    const indexes = await queryRows<{ indexname: string; indexdef: string }>(
      t.ctx.db,
      sql`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'addresses' ORDER BY indexname`,
    );
    expect(indexes.map((index) => index.indexdef.replace(/^.* USING btree /, ""))).toEqual([
      "(address)",
      // Indexes are per chain family's pool (migration 0022); a claim never changes the family.
      "(family, derivation_index)",
      "(id)",
      // Only static addresses have one: the pool's NULLs take no entry.
      "(family, static_index) WHERE (static_index IS NOT NULL)",
    ]);
    // Still unique where set.
    await queryRows(
      t.ctx.db,
      sql`INSERT INTO addresses (static_index, address, status, created_at) VALUES (900001, 'TStaticOnce', 'static', now())`,
    );
    const twice = await queryRows(
      t.ctx.db,
      sql`INSERT INTO addresses (static_index, address, status, created_at) VALUES (900001, 'TStaticTwice', 'static', now())`,
    ).then(
      () => null,
      (error: unknown) => error,
    );
    expect(describeDatabaseError(twice)?.sqlstate).toBe("23505");
  });

  it("makes binding a claimed address a HOT update: no index of addresses gets a new entry", async () => {
    const start = await addFree(50, "THotClaim");
    const counts = await t.ctx.database.session(async (s) => {
      // The session's counts not yet flushed to the statistics (earlier statements included).
      const read = async () => {
        const { rows } = await s.query<{ updated: string; hot: string }>(
          `SELECT n_tup_upd::text AS updated, n_tup_hot_upd::text AS hot
           FROM pg_stat_xact_user_tables WHERE relname = 'addresses'`,
        );
        return { updated: Number(rows[0]?.updated ?? 0), hot: Number(rows[0]?.hot ?? 0) };
      };
      await s.query("BEGIN");
      try {
        const before = await read();
        // The columns the creation statement's bind sets (create-order.ts, `bound`), but order_id,
        // which must name an order (foreign key) and is no more indexed than the others.
        await s.query(
          `UPDATE addresses SET status = 'allocated', allocated_at = now(),
             released_at = NULL, quarantine_until = NULL
           WHERE id IN (SELECT id FROM (${claimFreeAddresses(String(start))} LIMIT 16 FOR UPDATE SKIP LOCKED) AS claim)`,
        );
        const after = await read();
        return { updated: after.updated - before.updated, hot: after.hot - before.hot };
      } finally {
        await s.query("ROLLBACK");
      }
    });
    expect(counts).toEqual({ updated: 16, hot: 16 });
  });
});
