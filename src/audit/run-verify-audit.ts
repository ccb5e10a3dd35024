/**
 * The `stablegate verify-audit` command: recomputes the audit chain; prints the row count and the
 * last hash, or the first broken row (seq and id) and why, and answers the exit code (0 / 1).
 */
import { join } from "node:path";
import type { Config } from "../config.js";
import { openDatabase } from "../db/connection.js";
import { verifyAudit } from "./verify-audit.js";

export async function runVerifyAudit(
  config: Config,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: join(config.dataDir, "pglite"),
  });
  try {
    const result = await verifyAudit(database.db);
    if (result.broken) {
      out(
        `audit chain broken at row seq ${result.broken.seq} (id ${result.broken.id}): ${result.broken.reason}`,
      );
      out(`rows verified before it: ${result.rows}`);
      return 1;
    }
    out(`audit chain intact: ${result.rows} rows, last hash ${result.lastHash}`);
    return 0;
  } finally {
    await database.close();
  }
}
