/**
 * ARCHITECTURE.md's module list is true to the tree: every directory and file directly under src/
 * has exactly one entry (indented two spaces under `src/` in the first code block), and every entry
 * names something that exists.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

function srcEntries(markdown: string): string[] {
  const block = markdown.match(/```\n(src\/\n[\s\S]*?)```/)?.[1] ?? "";
  return [...block.matchAll(/^ {2}(\S+)/gm)].map((m) => m[1] as string);
}

describe("ARCHITECTURE.md", () => {
  it("lists every module of src/ once and nothing that is not there", () => {
    const tree = readdirSync(join(ROOT, "src"), { withFileTypes: true })
      .filter((e) => e.isDirectory() || (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")))
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    const entries = srcEntries(readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8"));
    expect(entries.length).toBeGreaterThan(10);
    const repeated = entries.filter((name, i) => entries.indexOf(name) !== i);
    expect(repeated, "listed more than once").toEqual([]);
    expect(
      tree.filter((name) => !entries.includes(name)),
      "in src/ but not listed",
    ).toEqual([]);
    expect(
      entries.filter((name) => !tree.includes(name)),
      "listed but not in src/",
    ).toEqual([]);
  });

  it("finds a repeated entry (the check can fail)", () => {
    expect(srcEntries("```\nsrc/\n  a/  one\n  b.ts  two\n  a/  again\n```\n")).toEqual(["a/", "b.ts", "a/"]);
  });
});
