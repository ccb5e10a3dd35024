/**
 * The published audit head (DESIGN.md 12): `verify-audit --head` prints the newest row's ID:HASH,
 * and `--expect-head ID:HASH` fails once the chain no longer holds that row. The attack it catches:
 * someone with the database owner's rights deletes the newest rows and rewrites audit_chain_head,
 * which leaves a chain that recomputes cleanly. An on-disk PGlite, as the CLI opens it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendAudit } from "../../src/audit/append-audit.js";
import { formatAuditHead, parseAuditHead, readAuditHead } from "../../src/audit/audit-head.js";
import { runVerifyAudit } from "../../src/audit/run-verify-audit.js";
import { openDatabase } from "../../src/db/connection.js";
import { queryRows } from "../../src/db/query-rows.js";
import { migrate } from "../../src/db/migrate.js";
import type { Config } from "../../src/config.js";
import { testConfig } from "../helpers/config.js";

let dir: string;
let config: Config;
let rows: { seq: number; id: string; hash: string }[];

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runVerifyAudit(config, args, (line) => lines.push(line));
  return { code, out: lines.join("\n") };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sg-audit-head-"));
  config = testConfig({ DATA_DIR: dir });
  const database = await openDatabase({ dataDir: join(dir, "pglite") });
  await migrate(database);
  for (let i = 1; i <= 6; i++) {
    await appendAudit(database.db, {
      actor: { kind: "system", label: "head test" },
      action: "test.row",
      after: { i },
    });
  }
  rows = (
    await queryRows<{ seq: string; id: string; hash: string }>(
      database.db,
      sql`SELECT seq::text AS seq, id::text AS id, hash FROM audit_log ORDER BY seq`,
    )
  ).map((r) => ({ seq: Number(r.seq), id: r.id, hash: r.hash }));
  expect(await readAuditHead(database.db)).toEqual(rows[5]);
  await database.close();
}, 180_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("stablegate verify-audit --head / --expect-head", () => {
  it("prints the newest row's ID:HASH, which --expect-head accepts while the chain holds it", async () => {
    const newest = rows[5] as (typeof rows)[number];
    const head = await run(["--head"]);
    expect(head.code).toBe(0);
    expect(head.out).toContain(`audit head: ${newest.id}:${newest.hash} (seq 6)`);
    expect(parseAuditHead(formatAuditHead(newest))).toEqual({ id: newest.id, hash: newest.hash });
    expect(await run(["--expect-head", formatAuditHead(newest)])).toMatchObject({ code: 0 });
  }, 120_000);

  it("fails --expect-head after the newest rows are deleted and the chain head rewritten, though the chain verifies", async () => {
    const database = await openDatabase({ dataDir: join(dir, "pglite") });
    const kept = rows[3] as (typeof rows)[number];
    // What an intruder with the owner's rights can do: switch the guard off, cut the tail, fix the head.
    await database.db.execute(sql`ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`);
    await database.db.execute(sql`DELETE FROM audit_log WHERE seq > 4`);
    await database.db.execute(sql`ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only`);
    await database.db.execute(sql`UPDATE audit_chain_head SET seq = 4, hash = ${kept.hash}`);
    await database.close();

    // The chain alone cannot tell: it recomputes cleanly and names the new, earlier head.
    const plain = await run(["--head"]);
    expect(plain.code).toBe(0);
    expect(plain.out).toContain("audit chain intact: 4 rows");
    expect(plain.out).toContain(`audit head: ${kept.id}:${kept.hash} (seq 4)`);

    const newest = rows[5] as (typeof rows)[number];
    const gone = await run(["--expect-head", formatAuditHead(newest)]);
    expect(gone.code).toBe(1);
    expect(gone.out).toContain(`expected head ${newest.id}:${newest.hash} is not in the chain`);
    // A head kept before the cut still holds.
    expect(await run(["--expect-head", formatAuditHead(rows[2] as (typeof rows)[number])])).toMatchObject({
      code: 0,
    });
    // A row id with another hash is no match either.
    const forged = await run(["--expect-head", `${kept.id}:${"0".repeat(64)}`]);
    expect(forged.code).toBe(1);
  }, 180_000);

  it("answers usage errors with exit code 2 and a clear line, opening nothing", async () => {
    expect(await run(["--expect-head", "not-a-head"])).toEqual({
      code: 2,
      out: "verify-audit: --expect-head takes ID:HASH (a row id and its 64-digit hex hash, as --head prints)",
    });
    const unknown = await run(["--tail"]);
    expect(unknown.code).toBe(2);
    expect(unknown.out).toMatch(/^verify-audit: .*--tail/);
  });
});
