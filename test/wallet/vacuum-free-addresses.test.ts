/**
 * The pool filler vacuums the list of free addresses itself after POOL_VACUUM_TAKES takes (issue
 * 26): every claim leaves a dead entry at the front of free_addresses' primary key that later
 * claims from 0 step over until a vacuum removes it, and neither PGlite nor a PostgreSQL with
 * autovacuum off (or slow) removes them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPoolState, vacuumFreeAddressesIfDue } from "../../src/wallet/fill-address-pool.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { explainClaim } from "../helpers/claim-plan.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** Buffers one claim of 5 free addresses touches in the free list (EXPLAIN ANALYZE, rolled back). */
async function claimBuffers(): Promise<number> {
  return (await explainClaim(t.ctx, 0, "5")).listBuffers;
}

/** Puts `count` free addresses in the pool and takes the first `taken` of them, as claims do. */
async function takeAddresses(count: number, taken: number): Promise<void> {
  await t.ctx.database.session(async (s) => {
    const { rows } = await s.query<{ start: number }>(
      "UPDATE address_pool_state SET next_index = next_index + $1 RETURNING next_index - $1 AS start",
      [count],
    );
    const start = rows[0]?.start ?? 0;
    await s.query(
      `INSERT INTO addresses (derivation_index, address, status, created_at)
       SELECT $1::int + i, 'TVacuumTest' || lpad(($1::int + i)::text, 23, '0'), 'free', now()
       FROM generate_series(0, $2::int - 1) AS i`,
      [start, count],
    );
    // One statement per take, as creations claim: each leaves its own dead index entry.
    for (let i = 0; i < taken; i += 500) {
      await s.query(
        `UPDATE addresses SET status = 'allocated', allocated_at = now()
         WHERE derivation_index >= $1 AND derivation_index < $2`,
        [start + i, start + Math.min(i + 500, taken)],
      );
    }
  });
}

describe("vacuuming the free list", () => {
  it("vacuums after POOL_VACUUM_TAKES takes, and the claim no longer steps over the dead entries", async () => {
    // A process's first run notes where it starts.
    expect(await vacuumFreeAddressesIfDue(t.ctx, 1_000)).toBe(false);
    await takeAddresses(12_000, 10_000);
    expect((await readPoolState(t.ctx.db)).taken).toBe(10_000);
    const before = await claimBuffers();
    expect(await vacuumFreeAddressesIfDue(t.ctx, 1_000)).toBe(true);
    const after = await claimBuffers();
    // 10,000 dead entries are some 25 index pages to step over; a vacuumed index leaves a handful.
    expect(before).toBeGreaterThan(20);
    expect(after).toBeLessThan(before / 3);
    // Not again until as many takes again.
    expect(await vacuumFreeAddressesIfDue(t.ctx, 1_000)).toBe(false);
    await takeAddresses(1_000, 999);
    expect(await vacuumFreeAddressesIfDue(t.ctx, 1_000)).toBe(false);
    await takeAddresses(1, 1);
    expect(await vacuumFreeAddressesIfDue(t.ctx, 1_000)).toBe(true);
  });
});
