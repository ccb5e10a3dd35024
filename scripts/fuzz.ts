/**
 * npm run fuzz -- [--runs 20000] [--seed N] [--raw 2000]
 * Fuzzes every route of a real app (PGlite, or PostgreSQL with TEST_DATABASE_URL) with fast-check
 * and prints the replies counted by status, the replies >= 500 and the unshaped refusals. Exits 1
 * when any property broke, printing the first examples.
 */
import fc from "fast-check";
import { rawRequest, startFuzzTarget, type FuzzOutcome } from "../test/fuzz/harness.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const runs = option("runs", 20_000);
const seed = option("seed", Date.now() % 2 ** 31);
const rawRuns = option("raw", Math.round(runs / 10));

const target = await startFuzzTarget();
const statuses = new Map<number, number>();
const problems: string[] = [];
const record = ({ status, problem }: FuzzOutcome) => {
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
  if (problem) problems.push(problem);
};
const started = Date.now();
try {
  await fc.assert(
    fc.asyncProperty(target.request, async (request) => record(await target.check(request))),
    {
      seed,
      numRuns: runs,
    },
  );
  await fc.assert(
    fc.asyncProperty(rawRequest, async (bytes) => record(await target.checkRaw(bytes))),
    {
      seed,
      numRuns: rawRuns,
    },
  );
  await target.assertHealthy();
} finally {
  await target.close();
}

const total = [...statuses.values()].reduce((a, b) => a + b, 0);
// 503 SERVICE_UNAVAILABLE (a dependency such as the chain node is down) is a documented answer; the
// harness checks its shape like any refusal. Every other 5xx is a bug.
const at5xx = [...statuses]
  .filter(([status]) => status >= 500 && status !== 503)
  .reduce((sum, [, n]) => sum + n, 0);
console.log(
  `fuzz: ${runs} requests + ${rawRuns} raw, seed ${seed}, ${((Date.now() - started) / 1000).toFixed(1)} s, ${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"}`,
);
console.log("status  count");
for (const [status, count] of [...statuses].sort((a, b) => a[0] - b[0])) {
  console.log(`${String(status === 0 ? "closed" : status).padEnd(7)} ${count}`);
}
console.log(`total ${total}; replies >= 500 other than 503: ${at5xx}; properties broken: ${problems.length}`);
for (const problem of problems.slice(0, 10)) console.log(`  ${problem}`);
process.exit(problems.length === 0 && at5xx === 0 ? 0 : 1);
