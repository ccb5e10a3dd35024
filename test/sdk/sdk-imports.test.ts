/**
 * The SDK stays light for merchants: at run time, following every import from
 * packages/sdk/src/index.ts, it loads node built-ins and its own files (the webhook verifier among
 * them), and nothing of the server (database, Fastify app, chain code) or of any npm package.
 */
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

/** Specifiers a file imports or re-exports; at run time only, unless `types` (then type-only too). */
function imports(file: string, types = false): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly && !types) continue;
      const named = clause?.namedBindings;
      const onlyTypes =
        clause !== undefined &&
        clause.name === undefined &&
        named !== undefined &&
        ts.isNamedImports(named) &&
        named.elements.every((e) => e.isTypeOnly);
      if (types || !onlyTypes) out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      const clause = statement.exportClause;
      const onlyTypes =
        statement.isTypeOnly ||
        (clause !== undefined && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly));
      if (onlyTypes && !types) continue;
      out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

/** Every file and package reached from packages/sdk/src/index.ts. */
function reach(types: boolean): { names: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [resolve(ROOT, "packages/sdk/src/index.ts")];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of imports(file, types)) {
      if (specifier.startsWith(".")) queue.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else packages.add(specifier);
    }
  }
  return { names: [...files].map((f) => relative(ROOT, f)).sort(), packages: [...packages] };
}

it("loads only node built-ins and its own files at run time", () => {
  const { names, packages } = reach(false);
  expect(names).toContain("packages/sdk/src/client.ts");
  expect(names).toContain("packages/sdk/src/fastify-plugin.ts");
  expect(names).toContain("packages/sdk/src/verify-webhook.ts");
  for (const name of names) expect(name.startsWith("packages/sdk/src/"), name).toBe(true);
  expect(packages.filter((p) => !p.startsWith("node:"))).toEqual([]);
});

// A merchant compiling with skipLibCheck off must not type-check our ORM or server types.
it("declares its types without reaching server modules or packages", () => {
  const { names, packages } = reach(true);
  expect(names).toContain("packages/sdk/src/webhook-payload.ts");
  for (const name of names) expect(name.startsWith("packages/sdk/src/"), name).toBe(true);
  expect(packages.filter((p) => !p.startsWith("node:"))).toEqual([]);
});
