/**
 * Lints a probe (source text) through ESLint's API as if it were the file `path` of the repository,
 * with the repository's own configuration, and answers the messages of one rule: how the tests of
 * our lint rules plant a forbidden import and see it refused.
 */
import { resolve } from "node:path";
import { ESLint } from "eslint";
import { expect } from "vitest";

export const ROOT = resolve(import.meta.dirname, "../..");

export const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: { rules: { "@typescript-eslint/no-unused-vars": "off" } },
});

/** The messages of `rule` for `code` linted as the file `path` (relative to the repository). */
export async function ruleErrors(rule: string, path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(ROOT, path) });
  const messages = result?.messages ?? [];
  const fatal = messages.filter((m) => m.fatal);
  expect(fatal, "the probe must parse").toEqual([]);
  return messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}

/** Every message of `rule` over the files `patterns` name, as "file: message" lines. */
export async function ruleHits(rule: string, patterns: string[], atLeast: number): Promise<string[]> {
  const results = await eslint.lintFiles(patterns);
  expect(results.length).toBeGreaterThan(atLeast);
  return results.flatMap((r) =>
    r.messages.filter((m) => m.ruleId === rule).map((m) => `${r.filePath}: ${m.message}`),
  );
}
