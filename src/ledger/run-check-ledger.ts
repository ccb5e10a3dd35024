/**
 * The `stablegate check-ledger` command: prints every difference (one line each) and the time the
 * check took, and answers the exit code: 0 when the ledger balances and agrees with the recount,
 * 1 otherwise.
 */
import { join } from "node:path";
import type { Config } from "../config.js";
import { openDatabase } from "../db/connection.js";
import { checkLedger, formatLedgerDifference } from "./check-ledger.js";

export async function runCheckLedger(
  config: Config,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: join(config.dataDir, "pglite"),
  });
  try {
    const started = performance.now();
    const differences = await checkLedger(database.db);
    for (const difference of differences) out(formatLedgerDifference(difference));
    out(
      `ledger differences: ${differences.length} (checked in ${Math.round(performance.now() - started)} ms)`,
    );
    return differences.length === 0 ? 0 : 1;
  } finally {
    await database.close();
  }
}
