/**
 * The `stablegate verify-audit` command: recomputes the audit chain; prints the row count and the
 * last hash, or the first broken row (seq and id) and why, and answers the exit code.
 *
 *   --head               also print the chain's head, `audit head: ID:HASH`, for a copy kept elsewhere
 *   --expect-head ID:HASH  fail unless the chain still holds that row (newest rows deleted and the
 *                          head rewritten leave an intact chain; only a kept head shows it)
 *
 * Exit codes: 0 intact (and holding the expected head), 1 broken or the head is gone, 2 usage.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Config } from "../config.js";
import { openDatabase } from "../db/connection.js";
import { auditChainHolds, formatAuditHead, parseAuditHead, readAuditHead } from "./audit-head.js";
import { verifyAudit } from "./verify-audit.js";

export async function runVerifyAudit(
  config: Config,
  args: string[] = [],
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  let options: { head: boolean; expectHead: string | undefined };
  try {
    const { values } = parseArgs({
      args,
      options: { head: { type: "boolean", default: false }, "expect-head": { type: "string" } },
    });
    options = { head: values.head === true, expectHead: values["expect-head"] };
  } catch (error) {
    out(`verify-audit: ${(error as Error).message}`);
    return 2;
  }
  const expected = options.expectHead === undefined ? undefined : parseAuditHead(options.expectHead);
  if (options.expectHead !== undefined && !expected) {
    out("verify-audit: --expect-head takes ID:HASH (a row id and its 64-digit hex hash, as --head prints)");
    return 2;
  }
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
    if (options.head) {
      const head = await readAuditHead(database.db);
      out(
        head
          ? `audit head: ${formatAuditHead(head)} (seq ${head.seq})`
          : "audit head: none (the log is empty)",
      );
    }
    if (expected) {
      if (!(await auditChainHolds(database.db, expected))) {
        out(
          `expected head ${formatAuditHead(expected)} is not in the chain: rows at or before it were deleted or rewritten`,
        );
        return 1;
      }
      out(`expected head ${expected.id} is in the chain`);
    }
    return 0;
  } finally {
    await database.close();
  }
}
