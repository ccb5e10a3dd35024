/**
 * The `stablegate check-rollups` command: prints every rollup counter that differs from a full
 * recount, one line each, and answers the exit code (0 when none differs, 1 otherwise).
 */
import { join } from "node:path";
import type { Config } from "../config.js";
import { openDatabase } from "../db/connection.js";
import { checkRollups } from "./check-rollups.js";

export async function runCheckRollups(
  config: Config,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: join(config.dataDir, "pglite"),
  });
  try {
    const differences = await checkRollups(database.db);
    for (const difference of differences) {
      const key = Object.entries(difference.key)
        .map(([name, value]) => `${name}=${value}`)
        .join(" ");
      out(
        `${difference.table} ${key}: stored ${difference.stored.join(" / ")}, recounted ${difference.actual.join(" / ")}`,
      );
    }
    out(`rollup differences: ${differences.length}`);
    return differences.length === 0 ? 0 : 1;
  } finally {
    await database.close();
  }
}
