#!/usr/bin/env node
// Runs the compiled CLI when built (npm run build), otherwise the TypeScript sources through tsx.
import { existsSync } from "node:fs";
import module from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// Node >= 22.1 keeps the compiled code of every module in a cache (NODE_COMPILE_CACHE, default in
// the temporary directory), so later starts skip most of the parsing and compiling of ~1,000 files
// (docs/deploy.md, "Start-up and memory"). On older Node it does not exist and nothing changes.
module.enableCompileCache?.();

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const compiled = join(root, "dist", "src", "main.js");
if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import("tsx/esm/api");
  // The repository's tsconfig.json, whatever the working directory: its paths resolve the workspace
  // packages (@stablegate/*) to their TypeScript sources.
  register({ tsconfig: join(root, "tsconfig.json") });
  await import(pathToFileURL(join(root, "src", "main.ts")).href);
}
