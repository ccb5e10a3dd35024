/**
 * Builds the web UI (web/ -> web/dist with Vite) when web/dist is missing or older than any source
 * file of web/. `npm start` runs it first, and the browser tests call ensureWebBuild(), so a fresh
 * clone serves the checkout page without a separate build step. `--force` always builds.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "web");
const builtPage = join(webDir, "dist", "index.html");

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "dist" || entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export function webBuildIsCurrent(): boolean {
  return existsSync(builtPage) && statSync(builtPage).mtimeMs >= newestSource(webDir);
}

/** Returns true when it had to build. */
export async function ensureWebBuild(options: { force?: boolean } = {}): Promise<boolean> {
  if (!options.force && webBuildIsCurrent()) return false;
  const { build } = await import("vite");
  await build({ configFile: join(webDir, "vite.config.ts") });
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const built = await ensureWebBuild({ force: process.argv.includes("--force") });
  process.stdout.write(
    built
      ? `web UI built into web/dist in ${Math.round(performance.now() - started)} ms\n`
      : "web UI is up to date (web/dist)\n",
  );
}
