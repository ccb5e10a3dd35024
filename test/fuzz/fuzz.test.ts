/**
 * Property-based fuzzing of every route, on PGlite and, with TEST_DATABASE_URL, on
 * PostgreSQL: no input answers 5xx; every refusal is { error, code } with a documented code and
 * changes nothing; the process stays healthy. About 2,000 cases per engine here; `npm run fuzz`
 * runs 20,000+ and prints the counts by status. FUZZ_SEED and FUZZ_RUNS override the defaults.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startFuzzTarget, type FuzzTarget } from "./harness.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_800);
const RAW_RUNS = Math.max(50, Math.round(RUNS / 9));

let target: FuzzTarget;
beforeAll(async () => {
  target = await startFuzzTarget();
}, 180_000);
afterAll(async () => {
  await target.close();
});

describe("every route under hostile input", () => {
  it("covers every documented route", () => {
    const paths = new Set(target.routes.map((route) => route.path));
    for (const path of [
      "/api/v1/payments",
      "/api/v1/admin/merchants/{id}",
      "/api/v1/admin/orders",
      "/api/v1/checkout/{id}/status",
    ]) {
      expect(paths.has(path), path).toBe(true);
    }
  });

  it("never answers 5xx; every refusal is { error, code } and changes nothing", async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(target.request, async (request) => {
        const { status, problem } = await target.check(request);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        expect(problem).toBeNull();
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // The run reached past authentication and validation, not only refusals.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(RUNS / 20);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(RUNS / 20);
  }, 900_000);

  it("answers raw protocol-level garbage in the shape, or closes", async () => {
    await fc.assert(
      fc.asyncProperty(rawRequest, async (bytes) => {
        const { problem } = await target.checkRaw(bytes);
        expect(problem).toBeNull();
      }),
      { seed: SEED, numRuns: RAW_RUNS, endOnFailure: true },
    );
  }, 600_000);

  it("stays healthy afterwards", async () => {
    await target.assertHealthy();
  });
});
