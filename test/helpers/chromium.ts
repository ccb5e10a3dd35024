/**
 * The one place the browser tests find Chromium (DESIGN 1), driven by playwright-core:
 *   1. `CHROMIUM_PATH`, when set;
 *   2. the system's Chromium (Debian's `chromium` package at /usr/bin/chromium, or another usual path);
 *   3. the Chromium that `npm install` brought: @sparticuz/chromium ships a brotli-compressed
 *      headless-shell build plus the few shared libraries it needs (NSS, NSPR, expat), which are
 *      unpacked once into node_modules/.cache and reused.
 * `TEST_CHROMIUM=npm` skips 1 and 2, so CI proves the fresh-machine path on a machine that has a
 * system Chromium.
 */
import { spawnSync } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

const SYSTEM_PATHS = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

export interface ChromiumChoice {
  source: "CHROMIUM_PATH" | "system" | "npm";
  executablePath: string;
  /** Extra environment for the browser process (the npm build's shared libraries and fonts). */
  env?: Record<string, string>;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Unpacks one `.tar.br` archive of the package into `dir` (with the system's tar, present everywhere). */
function untarBrotli(archive: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const result = spawnSync("tar", ["-x", "-C", dir], { input: brotliDecompressSync(readFileSync(archive)) });
  if (result.status !== 0) throw new Error(`tar failed on ${archive}: ${String(result.stderr)}`);
}

/**
 * Unpacks @sparticuz/chromium into node_modules/.cache/stablegate-chromium-<version> (once: test
 * files running in parallel each unpack into a private staging directory and the first rename
 * wins, so nobody ever launches a half-written binary).
 */
export function npmChromium(): ChromiumChoice {
  const entry = fileURLToPath(import.meta.resolve("@sparticuz/chromium"));
  const packageDir = resolve(dirname(entry), "..", "..");
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
    version: string;
  };
  const cacheRoot = resolve(packageDir, "..", "..", ".cache");
  const target = join(cacheRoot, `stablegate-chromium-${version}`);
  const binary = join(target, "chromium");
  if (!isExecutable(binary)) {
    mkdirSync(cacheRoot, { recursive: true });
    const staging = mkdtempSync(join(cacheRoot, "stablegate-chromium-staging-"));
    try {
      const bin = join(packageDir, "bin");
      const inflated = brotliDecompressSync(readFileSync(join(bin, "chromium.br")));
      writeFileSync(join(staging, "chromium"), inflated, { mode: 0o755 });
      untarBrotli(join(bin, "fonts.tar.br"), staging);
      untarBrotli(join(bin, "swiftshader.tar.br"), staging);
      untarBrotli(join(bin, "al2023.tar.br"), join(staging, "al2023"));
      try {
        renameSync(staging, target);
      } catch (err) {
        // Another test file unpacked it first.
        if (!isExecutable(binary)) throw err;
      }
    } finally {
      if (existsSync(staging)) rmSync(staging, { recursive: true, force: true });
    }
  }
  return {
    source: "npm",
    executablePath: binary,
    env: {
      // The build links NSS/NSPR/expat dynamically; the package ships them (built for Amazon
      // Linux 2023, glibc 2.34) so a machine without them still runs it. Swiftshader sits beside it.
      LD_LIBRARY_PATH: [join(target, "al2023", "lib"), target, process.env.LD_LIBRARY_PATH]
        .filter(Boolean)
        .join(":"),
      FONTCONFIG_PATH: join(target, "fonts"),
    },
  };
}

export function findChromium(): ChromiumChoice {
  if (process.env.TEST_CHROMIUM !== "npm") {
    const fromEnv = process.env.CHROMIUM_PATH;
    if (fromEnv) {
      if (!isExecutable(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} is not an executable file`);
      return { source: "CHROMIUM_PATH", executablePath: fromEnv };
    }
    const system = SYSTEM_PATHS.find(isExecutable);
    if (system) return { source: "system", executablePath: system };
  }
  return npmChromium();
}

export async function launchChromium(choice: ChromiumChoice = findChromium()): Promise<Browser> {
  return chromium.launch({
    executablePath: choice.executablePath,
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
    ...(choice.env ? { env: { ...process.env, ...choice.env } } : {}),
  });
}

/**
 * A fresh context and page whose uncaught errors (and, with `consoleErrors`, console errors) are
 * pushed to `problems`, for the test to assert empty.
 */
export async function openWatchedPage(
  browser: Browser,
  problems: string[],
  options: { consoleErrors?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  if (options.consoleErrors) {
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
  }
  return { context, page };
}
