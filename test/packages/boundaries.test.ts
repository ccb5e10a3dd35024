/**
 * The package boundaries (ARCHITECTURE.md, "Packages") are a lint rule, and it can fail: each
 * forbidden import below, linted through ESLint's API as if it were a file of that package, is an
 * error of `stablegate/package-boundaries`, while the allowed ones pass. The packages' manifests
 * declare the same: the SDK no dependencies, the devnet the toolkit and Anvil (a binary it runs,
 * never imports) alone.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, ruleErrors, ruleHits } from "./lint-probe.js";

const RULE = "stablegate/package-boundaries";
const boundaryErrors = (path: string, code: string) => ruleErrors(RULE, path, code);

const forbidden: Array<[string, string, string]> = [
  // @stablegate/tron imports nothing of ours
  ["packages/tron/src/probe.ts", 'import { createClient } from "@stablegate/sdk";', "@stablegate/sdk"],
  ["packages/tron/src/probe.ts", 'import { startDevnet } from "@stablegate/devnet";', "@stablegate/devnet"],
  [
    "packages/tron/src/probe.ts",
    'import { parseAmount } from "../../../src/money.js";',
    "../../../src/money.js",
  ],
  // the devnet imports only the toolkit
  [
    "packages/devnet/src/probe.ts",
    'import { keccak_256 } from "@noble/hashes/sha3.js";',
    "@noble/hashes/sha3.js",
  ],
  [
    "packages/devnet/src/probe.ts",
    'import { loadConfig } from "../../../src/config.js";',
    "../../../src/config.js",
  ],
  [
    "packages/devnet/src/probe.ts",
    'import { toHex } from "../../tron/src/address.js";',
    "../../tron/src/address.js",
  ],
  ["packages/devnet/src/probe.ts", 'export * from "@stablegate/sdk";', "@stablegate/sdk"],
  // the SDK imports only node built-ins, also for types and dynamic imports
  ["packages/sdk/src/probe.ts", 'import { request } from "undici";', "undici"],
  [
    "packages/sdk/src/probe.ts",
    'import type { Db } from "../../../src/db/connection.js";',
    "../../../src/db/connection.js",
  ],
  ["packages/sdk/src/probe.ts", 'export const load = () => import("fastify");', "fastify"],
  [
    "packages/sdk/src/probe.ts",
    'import { toHex } from "@stablegate/tron/address";',
    "@stablegate/tron/address",
  ],
  // the service reaches a package by its name only
  [
    "src/probe.ts",
    'import { toHex } from "./../packages/tron/src/address.js";',
    "./../packages/tron/src/address.js",
  ],
  [
    "test/probe.test.ts",
    'import { Chain } from "../packages/devnet/src/chain.js";',
    "../packages/devnet/src/chain.js",
  ],
];

describe("stablegate/package-boundaries", () => {
  it.each(forbidden)("refuses in %s: %s", async (path, code, specifier) => {
    const errors = await boundaryErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`'${specifier}'`);
  });

  it("allows each package its own files, node built-ins and its declared dependencies", async () => {
    const allowed: Array<[string, string]> = [
      [
        "packages/tron/src/probe.ts",
        'import { sha256 } from "@noble/hashes/sha2.js";\nimport { toHex } from "./address.js";',
      ],
      [
        "packages/devnet/src/probe.ts",
        'import { toHex } from "@stablegate/tron/address";\nimport { Chain } from "./chain.js";',
      ],
      [
        "packages/sdk/src/probe.ts",
        'import { createHmac } from "node:crypto";\nimport http from "http";\nexport * from "./client.js";',
      ],
      [
        "src/probe.ts",
        'import { toHex } from "@stablegate/tron/address";\nimport { parseAmount } from "./money.js";',
      ],
    ];
    for (const [path, code] of allowed) expect(await boundaryErrors(path, code), path).toEqual([]);
  });

  it("the real packages pass it (and their manifests declare the same dependencies)", async () => {
    expect(await ruleHits(RULE, ["packages/*/src/**/*.ts"], 40)).toEqual([]);
    const manifest = (name: string) =>
      JSON.parse(readFileSync(resolve(ROOT, `packages/${name}/package.json`), "utf8"));
    expect(manifest("sdk").dependencies ?? {}).toEqual({});
    expect(Object.keys(manifest("devnet").dependencies).sort()).toEqual([
      "@foundry-rs/anvil",
      "@stablegate/tron",
    ]);
    expect(Object.keys(manifest("tron").dependencies).filter((d) => d.startsWith("@stablegate/"))).toEqual(
      [],
    );
  }, 120_000);
});
