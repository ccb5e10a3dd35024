/**
 * Start-up time of `stablegate serve` with the embedded defaults (PGlite, in-process devnet):
 * from spawning the process to the first 200 from /api/v1/health/live, with a fresh DATA_DIR
 * (migrations, generated secrets, a new chain) and again with the same, existing one.
 *
 *   npx tsx bench/startup.ts
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const PORT = 3917;

async function startOnce(dataDir: string): Promise<{ readyMs: number; bannerMs: number | undefined }> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src/main.ts"), "serve"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(PORT),
      LOG_LEVEL: "warn",
      NODE_ENV: "development",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let bannerMs: number | undefined;
  child.stdout.on("data", (chunk: Buffer) => {
    const match = /ready in (\d+) ms/.exec(chunk.toString());
    if (match) bannerMs = Number(match[1]);
  });
  try {
    for (;;) {
      if (performance.now() - started > 60_000) throw new Error("not ready after 60 s");
      try {
        const res = await fetch(`http://127.0.0.1:${PORT}/api/v1/health/live`);
        if (res.status === 200) return { readyMs: performance.now() - started, bannerMs };
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "stablegate-startup-"));
try {
  const fresh = await startOnce(dataDir);
  const existing = [await startOnce(dataDir), await startOnce(dataDir)];
  const fmt = (r: { readyMs: number; bannerMs: number | undefined }) =>
    `${Math.round(r.readyMs)} ms to first health reply (service's own banner: ${r.bannerMs ?? "?"} ms after its code loaded)`;
  console.log(`fresh DATA_DIR:    ${fmt(fresh)}`);
  existing.forEach((r, i) => console.log(`existing DATA_DIR: ${fmt(r)}${i === 0 ? "" : " (again)"}`));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
