/**
 * Order creation never fails for want of an address, whatever the pool's state, while the pool
 * filler and the inline derivation insert addresses at the same time. On PostgreSQL
 * (TEST_DATABASE_URL) two creator processes and two filler processes race for real; on PGlite
 * (one process only) the same roles run concurrently in this process. The inline
 * derivation used to race the filler for the same derivation indexes and a creation answered 500.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";
import { supplyRace, type SupplyRaceInput, type SupplyRaceTally } from "./supply-race-steps.js";

const RACER = fileURLToPath(new URL("./supply-race-process.ts", import.meta.url));
const DURATION_MS = 8_000;

let t: TestApp;
let shop: TestMerchant;
beforeAll(async () => {
  t = await createTestApp();
  shop = await addMerchant(t.ctx);
});
afterAll(() => t.close());

function runProcess(url: string, input: SupplyRaceInput & { startAt: number }): Promise<SupplyRaceTally> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", RACER], {
      env: { ...process.env, DATABASE_URL: url, RACE: JSON.stringify(input) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("exit", (code) => {
      if (code !== 0) fail(new Error(`racer ${input.name} exited ${code}: ${stderr}`));
      else done(JSON.parse(stdout.trim().split("\n").pop() as string) as SupplyRaceTally);
    });
  });
}

async function race(prefix: string, target: number): Promise<SupplyRaceTally[]> {
  const inputs: SupplyRaceInput[] = [
    ...[1, 2].map((n) => ({
      role: "creator" as const,
      name: `${prefix}-creator-${n}`,
      merchantId: shop.id,
      durationMs: DURATION_MS,
      concurrency: 10,
    })),
    ...[1, 2].map((n) => ({
      role: "filler" as const,
      name: `${prefix}-filler-${n}`,
      merchantId: shop.id,
      durationMs: DURATION_MS,
      target,
    })),
  ];
  const url = t.testDb.url;
  if (url) {
    const startAt = Date.now() + 4000;
    return Promise.all(inputs.map((input) => runProcess(url, { ...input, startAt })));
  }
  return Promise.all(inputs.map((input) => supplyRace(t.ctx, input)));
}

async function poolFacts() {
  const [row] = await queryRows<{
    addresses: string;
    max_index: string;
    orders: string;
    distinct_addresses: string;
    bound: string;
  }>(
    t.ctx.db,
    sql`SELECT (SELECT count(*) FROM addresses)::text AS addresses,
      (SELECT max(derivation_index) FROM addresses)::text AS max_index,
      (SELECT count(*) FROM orders)::text AS orders,
      (SELECT count(DISTINCT address) FROM orders)::text AS distinct_addresses,
      (SELECT count(*) FROM addresses a JOIN orders o ON o.address_id = a.id AND o.address = a.address
        WHERE a.status = 'allocated' AND a.order_id = o.id)::text AS bound`,
  );
  return row;
}

function expectNoFailure(tallies: SupplyRaceTally[]) {
  // Printed whole on failure: which process failed, how often, with what.
  expect(tallies.map((tally) => ({ name: tally.name, errors: tally.errors }))).toEqual(
    tallies.map((tally) => ({ name: tally.name, errors: {} })),
  );
  const created = tallies.reduce((sum, tally) => sum + tally.created, 0);
  expect(created).toBeGreaterThan(0);
  return created;
}

describe("address supply under racing creators and fillers", () => {
  it(
    "never fails a creation on an empty pool (inline derivation racing the fillers)",
    { timeout: 120_000 },
    async () => {
      // A target far below one creation batch: the pool runs dry again and again, and the creations
      // that find it empty derive inline while the fillers insert their batches.
      const tallies = await race("empty", 8);
      const created = expectNoFailure(tallies);
      const filled = tallies.reduce((sum, tally) => sum + tally.filled, 0);
      const facts = await poolFacts();
      expect(Number(facts?.orders)).toBe(created);
      expect(facts?.distinct_addresses).toBe(facts?.orders);
      expect(facts?.bound).toBe(facts?.orders);
      // Some addresses came from inline derivation, not only from the fillers.
      expect(Number(facts?.addresses)).toBeGreaterThan(filled);
      // Indexes contiguous from 0, and the pool's counters equal a recount.
      expect(Number(facts?.max_index) + 1).toBe(Number(facts?.addresses));
      expect(await checkRollups(t.ctx.db)).toEqual([]);
    },
  );

  it("never fails a creation on a full pool", { timeout: 120_000 }, async () => {
    await fillAddressPool(t.ctx, { target: 3_000, batchSize: 3_000 });
    const before = await poolFacts();
    const tallies = await race("full", 3_000);
    const created = expectNoFailure(tallies);
    const facts = await poolFacts();
    expect(Number(facts?.orders) - Number(before?.orders)).toBe(created);
    expect(facts?.distinct_addresses).toBe(facts?.orders);
    expect(facts?.bound).toBe(facts?.orders);
    expect(Number(facts?.max_index) + 1).toBe(Number(facts?.addresses));
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});
