/**
 * A failing statement is logged with its SQL state and its name only: never the statement's
 * parameters (API-key hashes, callback URLs, metadata, webhook secrets) nor PostgreSQL's message,
 * which quotes values.
 */
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPrepared } from "../../src/db/query-rows.js";
import { createLogger } from "../../src/logger.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb.drop();
});

function capturingLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: createLogger({ level: "info", destination }), lines };
}

const SECRET = "whsec_do_not_log_0123456789abcdef";

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("the statement did not fail");
}

describe("database errors in logs", () => {
  it("logs a failed Drizzle statement by SQL state and verb/table, without its parameters", async () => {
    const error = await failure(() =>
      testDb.database.db.execute(
        sql`UPDATE merchants SET webhook_secret = ${SECRET} WHERE id = ${SECRET}::uuid`,
      ),
    );
    // The raw error does carry the secret: this is what the serializer must keep out.
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error)) + String(error)).toContain(SECRET);
    const { log, lines } = capturingLogger();
    log.error({ err: error }, "request failed");
    const entry = JSON.parse(lines[0] as string) as { err: Record<string, unknown> };
    expect(entry.err).toEqual({ type: "DatabaseError", sqlstate: "22P02", statement: "update merchants" });
    expect(lines.join("")).not.toContain(SECRET);
  });

  it("logs a failed prepared statement under its name", async () => {
    const statement = { name: "test_failing_insert", text: "SELECT $1::int AS n" };
    const error = await failure(() => runPrepared(testDb.database, statement, [SECRET]));
    const { log, lines } = capturingLogger();
    log.warn({ err: new Error("wrapped", { cause: error }) }, "background task failed");
    const entry = JSON.parse(lines[0] as string) as { err: Record<string, unknown> };
    expect(entry.err).toEqual({ type: "DatabaseError", sqlstate: "22P02", statement: "test_failing_insert" });
    expect(lines.join("")).not.toContain(SECRET);
  });

  it("keeps the standard serializer for other errors", () => {
    const { log, lines } = capturingLogger();
    log.error({ err: new TypeError("boom") }, "request failed");
    const entry = JSON.parse(lines[0] as string) as { err: Record<string, unknown> };
    expect(entry.err).toMatchObject({ type: "TypeError", message: "boom" });
  });
});
