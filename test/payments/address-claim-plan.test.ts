import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimFreeAddresses } from "../../src/payments/create-order.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(() => testDb.drop());

describe("claiming a free address", () => {
  it("reads only the partial index of free addresses, even with statistics taken when all were free", async () => {
    const plan = await testDb.database.session(async (s) => {
      await s.exec(`
        INSERT INTO addresses (derivation_index, address, status, created_at)
        SELECT i, 'T' || i, 'free', now() FROM generate_series(0, 19999) AS i;
        ANALYZE addresses;
        UPDATE addresses SET status = 'allocated' WHERE derivation_index < 15000;`);
      const { rows } = await s.query<{ "QUERY PLAN": string }>(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${claimFreeAddresses("0")} LIMIT 5 FOR UPDATE SKIP LOCKED`,
      );
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    expect(plan).toContain("addresses_free_claim_idx");
    // Walking the unique index instead would filter out the 15,000 allocated addresses on every claim.
    expect(plan).not.toMatch(/Rows Removed by Filter: [1-9]/);
  });
});
