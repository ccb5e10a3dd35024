/**
 * npm run chaos -- [--duration 300] [--seed N] [--workers 2] [--settle 300]
 * The long chaos run (test/chaos/chaos-run.ts): worker processes SIGKILLed and restarted at seeded
 * moments for --duration seconds while the mix of orders, strays, deposits, refunds, payouts and EVM
 * reorganisations runs, then the settling and the checks against check-ledger and the chains.
 * Prints the seed first; exits 1 naming the state that disagreed.
 */
import { runChaos } from "../test/chaos/chaos-run.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} must be a whole number`);
  return value;
}

const seed = option("seed", Math.floor(Math.random() * 2 ** 31));
const durationS = option("duration", 300);
const started = Date.now();
try {
  const report = await runChaos({
    seed,
    durationMs: durationS * 1000,
    workers: option("workers", 2),
    settleMs: option("settle", 300) * 1000,
  });
  process.stdout.write(
    `chaos run passed in ${Math.round((Date.now() - started) / 1000)} s: seed ${seed}, ` +
      `${report.kills} kills, ${report.reorgs} reorgs, ${report.checks.length} checks, ` +
      `${report.webhookRedeliveries} webhook re-deliveries\n${JSON.stringify(report.counts)}\n`,
  );
} catch (error) {
  process.stderr.write(
    `chaos run FAILED (seed ${seed}):\n${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
}
