// Run by bench/memory-startup.ts --embedded with and without --liftoff-only: an in-memory PGlite with
// the embedded settings (src/db/pglite-bounds.ts; passed as argv[2], JSON), 2,000 inserts and 500
// aggregate queries; prints one JSON line: the CPU they took (every thread of the process, so the
// optimising compiler's work counts) and the wall time.
import { performance } from "node:perf_hooks";
import process from "node:process";
import { PGlite } from "@electric-sql/pglite";

const db = new PGlite({ startParams: JSON.parse(process.argv[2]) });
await db.waitReady;
await db.exec("CREATE TABLE t (id serial PRIMARY KEY, v text NOT NULL, n numeric(38, 0) NOT NULL)");
const cpu = process.cpuUsage();
const began = performance.now();
for (let i = 0; i < 2000; i++) await db.query("INSERT INTO t (v, n) VALUES ($1, $2)", [`v${i}`, i]);
for (let i = 0; i < 500; i++) await db.query("SELECT count(*), sum(n) FROM t WHERE v > $1", [`v${i}`]);
const used = process.cpuUsage(cpu);
const wallMs = performance.now() - began;
await db.close();
process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000, wallMs })}\n`);
