/**
 * A merchant's clone has nothing beside it: no file the project runs (code, scripts, configs, CI)
 * may reach outside the repository for the team's shared folder, where the team's specification and raw node
 * captures live. What the tests need is carried in the repository (test/fixtures/). `.ci/run` also
 * runs the whole suite from a clone in an empty directory, which proves the same by running it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const RUN = /\.(ts|tsx|mts|cts|js|mjs|cjs|json|jsonc|sh)$|(^|\/)(Dockerfile|run)$/;
const SHARED = "shared";
// A path that climbs out of the repository into shared/, written as a string or as path segments.
const REACHES_SHARED = new RegExp(
  String.raw`\.\.[\\/](?:\.\.[\\/])*${SHARED}\b|["']\.\.["']\s*,\s*(?:["']\.\.["']\s*,\s*)*["']${SHARED}["']`,
);

/** Lines of `text` that reach for the shared folder. */
function sharedReads(text: string): string[] {
  return text.split("\n").filter((line) => REACHES_SHARED.test(line));
}

describe("a plain clone is self-contained", () => {
  it("recognises every way of naming the shared folder that it must refuse", () => {
    const dots = "..";
    expect(
      sharedReads(`const DIR = resolve(import.meta.dirname, "${dots}/${dots}/${SHARED}/tron-real");`),
    ).toHaveLength(1);
    expect(sharedReads(`readFileSync("${dots}/${SHARED}/SPEC.md")`)).toHaveLength(1);
    expect(sharedReads(`join(root, "${dots}", "${SHARED}", "tron-real")`)).toHaveLength(1);
    expect(sharedReads(`cp -r ${dots}\\${SHARED}\\x .`)).toHaveLength(1);
    expect(sharedReads(`// the free pool is ${SHARED} by every process`)).toHaveLength(0);
    expect(sharedReads(`import { x } from "./${SHARED}-fields.js";`)).toHaveLength(0);
  });

  it("has no code, script, config or CI file that reads the shared folder beside the checkout", () => {
    const files = execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" })
      .split("\n")
      .filter((file) => RUN.test(file));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) =>
      sharedReads(readFileSync(join(ROOT, file), "utf8")).map((line) => `${file}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
