/**
 * What the embedded engine (PGlite: Postgres compiled to WebAssembly, in the service's process) may
 * hold in memory. A WebAssembly heap grows and never shrinks, and every page Postgres touches stays
 * resident, so each buffer is bounded where Postgres sizes it (docs/configuration.md, "Memory of the
 * embedded database"):
 *
 * - Postgres settings sized for one process serving one small shop, passed as start parameters (they
 *   outrank postgresql.conf, and SHOW reports them): with the initdb default of 128 MB of shared
 *   buffers Postgres kept about 150 MB of the heap resident from start-up on;
 * - WAL: in PGlite's single-user mode no checkpointer runs between statements, and a checkpoint
 *   comes only when max_wal_size of WAL has been written; 64 MB bounds the WAL on disk and what a
 *   restart replays;
 * - the WebAssembly code: V8 compiles the 9 MB module with its baseline compiler (Liftoff) only,
 *   without the optimising tier's second copy of hot functions and the memory that compiling them
 *   takes (about 60 MB resident); queries measured as fast (bench/memory-startup.ts --embedded);
 * - initdb: creating a database runs a second Postgres instance beside the first, whose heap and
 *   code stayed behind as a few hundred MB of resident memory; a new data directory is therefore
 *   created by a short-lived child process, and the service only opens it.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { setFlagsFromString } from "node:v8";

/** Postgres settings of every embedded database (and what SHOW answers for them). */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  shared_buffers: "16MB",
  wal_buffers: "512kB",
  temp_buffers: "2MB",
  work_mem: "4MB",
  maintenance_work_mem: "16MB",
  max_wal_size: "64MB",
  min_wal_size: "32MB",
});

/** PGlite's own start parameters (single-user mode and its flags) followed by PGLITE_SETTINGS. */
export function pgliteStartParams(defaults: readonly string[]): string[] {
  return [
    ...defaults,
    ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ];
}

/** The V8 flag that keeps WebAssembly on the baseline compiler; set before PGlite's module compiles. */
export const WASM_BASELINE_FLAG = "--liftoff-only";

/** Applies WASM_BASELINE_FLAG to this process (idempotent; only WebAssembly compiled later is affected). */
export function useBaselineWasmCompiler(): void {
  setFlagsFromString(WASM_BASELINE_FLAG);
}

// Run by `node -e` in the child: plain CommonJS, so it needs no TypeScript loader from source. The
// flag is set from inside rather than on the command line, where a V8 without it would refuse to start.
const INITDB_SCRIPT = `
const [flag, entry, dir, params] = process.argv.slice(1);
require("node:v8").setFlagsFromString(flag);
const { PGlite } = require(entry);
(async () => {
  const db = new PGlite(dir, { startParams: JSON.parse(params) });
  await db.waitReady;
  await db.close();
})().catch((error) => {
  process.stderr.write(String(error && error.message ? error.message : error) + "\\n");
  process.exit(1);
});
`;

/**
 * Creates the data directory's database in a child process when it has none yet (no PG_VERSION).
 * The child writes into a sibling directory that is renamed into place once complete, so a start
 * that dies half-way leaves no half-made database behind. A directory that holds files but no
 * database is refused rather than written into.
 */
export async function createPgliteDataDir(dataDir: string, startParams: readonly string[]): Promise<void> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return;
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new Error(`${dataDir} holds files but no database: move it aside to create a new one`);
  }
  const parent = dirname(dataDir);
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const building = join(parent, `.${basename(dataDir)}.initdb-${process.pid}`);
  rmSync(building, { recursive: true, force: true });
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  try {
    await runChild([
      "-e",
      INITDB_SCRIPT,
      "--",
      WASM_BASELINE_FLAG,
      entry,
      building,
      JSON.stringify(startParams),
    ]);
    rmSync(dataDir, { recursive: true, force: true });
    renameSync(building, dataDir);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

function runChild(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`creating the embedded database failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`),
        );
    });
  });
}
