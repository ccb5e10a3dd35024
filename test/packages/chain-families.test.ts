/**
 * The chain boundary is a lint rule, and it can fail: a family's toolkit imported outside its
 * folder of src/chains/, a family's folder reached from outside src/chains/ (or from another
 * family's), and a branch on a chain's name in domain code are each an error of
 * `stablegate/chain-families`, while the boundary's own modules pass.
 */
import { describe, expect, it } from "vitest";
import { ruleErrors, ruleHits } from "./lint-probe.js";

const RULE = "stablegate/chain-families";
const familyErrors = (path: string, code: string) => ruleErrors(RULE, path, code);

const toolkitImports: Array<[string, string, string]> = [
  [
    "src/payments/probe.ts",
    'import { hexToBase58 } from "@stablegate/tron/address";',
    "@stablegate/tron/address",
  ],
  ["src/orders/probe.ts", 'import { TronWeb } from "tronweb";', "tronweb"],
  ["src/strays/probe.ts", 'import bs58 from "bs58";', "bs58"],
  ["src/chain/probe.ts", 'export type { Block } from "@stablegate/tron";', "@stablegate/tron"],
  ["src/payments/probe.ts", 'import { createPublicClient } from "viem";', "viem"],
  ["src/wallet/probe.ts", 'export const load = () => import("ethers");', "ethers"],
  // One family's folder does not use another family's toolkit.
  ["src/chains/tron/probe.ts", 'import { keccak256 } from "viem/utils";', "viem/utils"],
  [
    "src/chains/evm/probe.ts",
    'import { hexToBase58 } from "@stablegate/tron/address";',
    "@stablegate/tron/address",
  ],
  ["src/chains/probe.ts", 'import { TronWeb } from "tronweb";', "tronweb"],
];

const folderImports: Array<[string, string, string]> = [
  [
    "src/chain/probe.ts",
    'import { createNodePool } from "../chains/tron/node-pool.js";',
    "../chains/tron/node-pool.js",
  ],
  [
    "src/payments/probe.ts",
    'import type { ChainAccess } from "../chains/tron/chain-access.js";',
    "../chains/tron/chain-access.js",
  ],
  ["src/wallet/probe.ts", 'export * from "../chains/evm/evm-chain.js";', "../chains/evm/evm-chain.js"],
  [
    "src/chains/evm/probe.ts",
    'import { fetchBlocks } from "../tron/fetch-blocks.js";',
    "../tron/fetch-blocks.js",
  ],
];

const branches: Array<[string, string, string]> = [
  ["src/payments/probe.ts", 'export const f = (chain: { id: string }) => chain.id === "tron";', "tron"],
  ["src/orders/probe.ts", 'export const f = (id: string) => "ethereum" !== id;', "ethereum"],
  [
    "src/strays/probe.ts",
    'export function f(family: string) {\n  switch (family) {\n    case "evm":\n      return 1;\n    default:\n      return 0;\n  }\n}',
    "evm",
  ],
  // An allowed import does not allow a branch.
  ["src/sweeps/probe.ts", 'export const f = (chain: string) => chain == "bsc";', "bsc"],
];

describe("stablegate/chain-families", () => {
  it.each(toolkitImports)("refuses a family's toolkit in %s: %s", async (path, code, specifier) => {
    const errors = await familyErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`may import '${specifier}'`);
  });

  it.each(folderImports)("refuses a family's folder from %s: %s", async (path, code, specifier) => {
    const errors = await familyErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`'${specifier}' is inside the`);
  });

  it.each(branches)("refuses a branch on a chain name in %s", async (path, code, name) => {
    const errors = await familyErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`branch on the chain name '${name}'`);
  });

  it("allows each family its toolkit, the boundary its families, and domain code the boundary", async () => {
    const allowed: Array<[string, string]> = [
      [
        "src/chains/tron/probe.ts",
        'import { hexToBase58 } from "@stablegate/tron/address";\nimport { x } from "./node-pool.js";',
      ],
      ["src/chains/evm/probe.ts", 'import { createPublicClient } from "viem";'],
      ["src/chains/probe.ts", 'import { createTronChain } from "./tron/tron-chain.js";'],
      [
        "src/payments/probe.ts",
        'import type { Chain } from "../chains/chain.js";\nimport { unitsToMicro } from "../chains/token-units.js";',
      ],
      // Inside src/chains a family may name itself; elsewhere a name that is no comparison is data.
      ["src/chains/tron/probe.ts", 'export const f = (id: string) => id === "tron";'],
      [
        "src/payments/probe.ts",
        'export const chain = "tron";\nexport const f = (s: string) => s === "pending";',
      ],
      // Money out keeps TRON's toolkit until sending moves behind the boundary.
      ["src/sweeps/probe.ts", 'import { signTransaction } from "@stablegate/tron/sign";'],
      [
        "test/probe.test.ts",
        'import { TronWeb } from "tronweb";\nexport const f = (c: string) => c === "tron";',
      ],
    ];
    for (const [path, code] of allowed) expect(await familyErrors(path, code), path).toEqual([]);
  });

  it("the service's own code passes it", async () => {
    expect(await ruleHits(RULE, ["src/**/*.ts"], 200)).toEqual([]);
  }, 180_000);
});
