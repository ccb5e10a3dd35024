/**
 * The real CLI (src/main.ts, run as a process) dispatches from COMMANDS (src/commands.ts): every
 * verb of the list runs and does its job on a fresh development data directory, and a verb outside
 * the list (prototype names included) is refused as unknown before anything is read or written.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { COMMANDS, type Command } from "../../src/commands.js";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

interface Exit {
  code: number | NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function environment(dataDir: string): Record<string, string> {
  // A clean environment: nothing of the test runner's leaks in.
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? tmpdir(),
    TSX_TSCONFIG_PATH: join(ROOT, "tsconfig.json"),
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
  };
}

const running = new Set<ReturnType<typeof spawn>>();
afterAll(() => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * Runs `stablegate ...args`. With `until`, sends SIGTERM once stdout matches it (a service that
 * keeps running); a deadline kills the process and the test names what it last printed.
 */
function stablegate(args: string[], dataDir: string, until?: RegExp): Promise<Exit> {
  return new Promise((done, fail) => {
    // Run from an empty directory, so no .env of the checkout fills in the configuration.
    const child = spawn(process.execPath, ["--import", TSX, join(ROOT, "src/main.ts"), ...args], {
      cwd: mkdtempSync(join(tmpdir(), "stablegate-cwd-")),
      env: environment(dataDir),
    });
    running.add(child);
    let stdout = "";
    let stderr = "";
    const deadline = setTimeout(() => {
      child.kill("SIGKILL");
      fail(
        new Error(
          `stablegate ${args.join(" ")} did not finish in 150 s; stdout: ${stdout}; stderr: ${stderr}`,
        ),
      );
    }, 150_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (until?.test(stdout) && child.exitCode === null && !child.killed) child.kill("SIGTERM");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code, signal) => {
      clearTimeout(deadline);
      running.delete(child);
      // A process ended by a signal has no code: name the signal instead.
      done({ code: code ?? signal, stdout, stderr });
    });
  });
}

/** What each verb must do; typed by Command, so a verb added to the list needs its check here. */
const EXPECTED: Record<Command, { until?: RegExp; stdout: RegExp }> = {
  migrate: { stdout: /^applied: 0001_/m },
  "check-rollups": { stdout: /^rollup differences: 0$/m },
  "verify-audit": { stdout: /^audit chain intact: \d+ rows/m },
  "check-ledger": { stdout: /^ledger differences: 0 /m },
  serve: { until: /^stablegate ready in \d+ ms \(role all, network devnet\)$/m, stdout: /dashboard:/ },
  help: { stdout: /^usage: stablegate <command>$/m },
};

describe("the stablegate CLI", () => {
  it("runs every command of COMMANDS, and each does its job", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stablegate-cli-"));
    // migrate first: the checks read a migrated database.
    const order = ["migrate", ...COMMANDS.filter((command) => command !== "migrate")] as Command[];
    expect([...order].sort()).toEqual([...COMMANDS].sort());
    for (const command of order) {
      const expected = EXPECTED[command];
      const result = await stablegate([command], dataDir, expected.until);
      expect({ command, code: result.code, stderr: result.stderr }).toEqual({ command, code: 0, stderr: "" });
      expect(result.stdout, command).toMatch(expected.stdout);
    }
  }, 600_000);

  it("lists every command in its usage", async () => {
    const { code, stdout } = await stablegate(["--help"], mkdtempSync(join(tmpdir(), "stablegate-cli-")));
    expect(code).toBe(0);
    const listed = [...stdout.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]);
    expect(listed).toEqual([...COMMANDS]);
  }, 150_000);

  it("refuses every verb outside COMMANDS as unknown, before it reads the configuration", async () => {
    const verbs = ["check-everything", "constructor", "toString", "__proto__", "SERVE", "--role", ""];
    const dataDir = mkdtempSync(join(tmpdir(), "stablegate-cli-"));
    const results = await Promise.all(verbs.map((verb) => stablegate([verb], dataDir)));
    const answers = results.map((result, i) => ({
      verb: verbs[i],
      code: result.code,
      said: result.stderr.split("\n")[0],
    }));
    expect(answers).toEqual(verbs.map((verb) => ({ verb, code: 1, said: `unknown command "${verb}"` })));
    // No development secrets generated, no database opened.
    expect(readdirSync(dataDir)).toEqual([]);
  }, 150_000);
});
