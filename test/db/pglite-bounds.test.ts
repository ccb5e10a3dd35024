import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../src/db/connection.js";
import { PGLITE_SETTINGS } from "../../src/db/pglite-bounds.js";

const scratch = mkdtempSync(join(tmpdir(), "sg-pglite-bounds-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function settingsOf(database: Database): Promise<Record<string, string>> {
  const shown: Record<string, string> = {};
  await database.session(async (session) => {
    for (const name of Object.keys(PGLITE_SETTINGS)) {
      const { rows } = await session.query<Record<string, string>>(`SHOW ${name}`);
      shown[name] = Object.values(rows[0] ?? {})[0] as string;
    }
  });
  return shown;
}

/** Counts the WebAssembly heaps created while fn runs (PGlite makes one per Postgres instance). */
async function countWasmHeaps<T>(fn: () => Promise<T>): Promise<{ result: T; heaps: number }> {
  const Native = WebAssembly.Memory;
  let heaps = 0;
  WebAssembly.Memory = class extends Native {
    constructor(descriptor: WebAssembly.MemoryDescriptor) {
      super(descriptor);
      heaps += 1;
    }
  };
  try {
    return { result: await fn(), heaps };
  } finally {
    WebAssembly.Memory = Native;
  }
}

describe("the embedded database's memory bounds", () => {
  it("runs an in-memory database with the bounded Postgres settings", async () => {
    const database = await openDatabase({});
    try {
      expect(await settingsOf(database)).toEqual(PGLITE_SETTINGS);
      expect(PGLITE_SETTINGS.shared_buffers).toBe("16MB");
    } finally {
      await database.close();
    }
  });

  it("creates a new data directory in a child process and opens it with the same settings", async () => {
    const dataDir = join(scratch, "fresh", "pglite");
    // In-process creation would start a second Postgres (initdb) with heaps of its own beside ours.
    const { result: database, heaps } = await countWasmHeaps(() => openDatabase({ dataDir }));
    try {
      expect(heaps).toBe(1);
      expect(readdirSync(dataDir)).toContain("PG_VERSION");
      expect(readdirSync(join(scratch, "fresh"))).toEqual(["pglite"]);
      expect(await settingsOf(database)).toEqual(PGLITE_SETTINGS);
      await database.session((session) =>
        session.exec("CREATE TABLE kept (n integer); INSERT INTO kept VALUES (42);"),
      );
    } finally {
      await database.close();
    }
    const reopened = await openDatabase({ dataDir });
    try {
      const rows = await reopened.session((session) => session.query<{ n: number }>("SELECT n FROM kept"));
      expect(rows.rows).toEqual([{ n: 42 }]);
      expect(await settingsOf(reopened)).toEqual(PGLITE_SETTINGS);
    } finally {
      await reopened.close();
    }
    // Three Postgres starts (the child's, then two opens): slow on a shared machine.
  }, 180_000);

  it("refuses a data directory that holds files but no database, and leaves it as it was", async () => {
    const dataDir = join(scratch, "junk", "pglite");
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, "notes.txt"), "not a database");
    await expect(openDatabase({ dataDir })).rejects.toThrow(/holds files but no database/);
    expect(readdirSync(dataDir)).toEqual(["notes.txt"]);
    expect(readdirSync(join(scratch, "junk"))).toEqual(["pglite"]);
  });
});
