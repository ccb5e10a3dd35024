import js from "@eslint/js";
import tseslint from "typescript-eslint";
import boundaries from "./scripts/eslint-package-boundaries.js";
import layers from "./scripts/eslint-layers.js";

// The package boundaries (ARCHITECTURE.md, "Packages"): what each workspace package may import.
const TRON_DEPENDENCIES = [
  "@noble/curves",
  "@noble/hashes",
  "@scure/base",
  "@scure/bip32",
  "@scure/bip39",
  "undici",
];
const boundary = (options) => ({ "stablegate/package-boundaries": ["error", options] });
const layer = (options) => ({ "stablegate/layers": ["error", options] });

// The service's layers (ARCHITECTURE.md, "Rules the layout enforces"): http -> domain -> db, only
// downward. The HTTP layer is src/http; src/server.ts (the process: it builds the app and starts the
// loops) and src/main.ts (the CLI) sit above both. Everything else under src/ is domain code.
const HTTP_LAYER = ["src/http/**/*.ts"];
const ABOVE_THE_LAYERS = ["src/server.ts", "src/main.ts"];
// What can build or run SQL: the drivers, the query builder, and our own database modules (the
// handle, the tables, the statement helpers). The error classifier that turns an unreachable
// database into 503 is the one database module the HTTP layer needs.
const DATABASE_DRIVERS = ["pg", "pg-*", "postgres", "@electric-sql/pglite", "drizzle-orm"];

// The chain boundary (ARCHITECTURE.md, "Chains"): each family's toolkit and code stay in its folder
// of src/chains/, and no code outside src/chains/ branches on a chain's or family's name.
const CHAIN_FAMILY_TOOLKITS = {
  tron: ["@stablegate/tron", "tronweb", "bs58", "base58*"],
  evm: ["viem", "ethers", "@ethersproject/*"],
};
const CHAIN_NAMES = ["tron", "ethereum", "bsc", "polygon", "arbitrum", "base", "evm"];
const CHAIN_BOUNDARY_EXCEPTIONS = [
  {
    paths: ["src/sweeps", "src/payouts"],
    reason: "money out signs and broadcasts with TRON's toolkit until sending moves behind the boundary",
  },
  {
    paths: ["src/config.ts", "src/config"],
    reason: "TRON's variables are checked with its toolkit until each family parses its own",
  },
  {
    paths: ["src/server.ts"],
    reason: "the process starts TRON's embedded devnet and stops its derivation thread",
  },
  {
    paths: [
      "src/chain/node-pool.ts",
      "src/chain/chain-access.ts",
      "src/chain/extract-transfers.ts",
      "src/chain/embedded-devnet.ts",
      "src/wallet/pool-derivation.ts",
      "src/wallet/address-deriver.ts",
    ],
    reason: "former paths of TRON's modules, re-exported for tests and benchmarks",
  },
];

export default tseslint.config(
  {
    ignores: [
      "**/dist/",
      "packages/*/dist.tmp/",
      "node_modules/",
      "data/",
      "web/dist/",
      "coverage/",
      "test/fixtures/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": "off",
    },
  },
  { plugins: { stablegate: { rules: { ...boundaries.rules, ...layers.rules } } } },
  // Chain families stay behind the chain boundary.
  {
    files: ["src/**/*.ts"],
    rules: {
      "stablegate/chain-families": [
        "error",
        {
          root: "src/chains",
          families: CHAIN_FAMILY_TOOLKITS,
          names: CHAIN_NAMES,
          allow: CHAIN_BOUNDARY_EXCEPTIONS,
        },
      ],
    },
  },
  // The service, tests, benchmarks and scripts reach a package by its name, never by a path into it.
  { files: ["**/*.{ts,tsx,js,mjs}"], rules: boundary({ package: null }) },
  // @stablegate/tron imports nothing of ours: only Node built-ins and its own npm dependencies.
  {
    files: ["packages/tron/**/*.{ts,js,mjs}"],
    rules: boundary({ package: "packages/tron", allow: TRON_DEPENDENCIES }),
  },
  // @stablegate/devnet imports only the toolkit.
  {
    files: ["packages/devnet/**/*.{ts,js,mjs}"],
    rules: boundary({ package: "packages/devnet", allow: ["@stablegate/tron"] }),
  },
  // @stablegate/sdk imports only Node built-ins.
  { files: ["packages/sdk/**/*.{ts,js,mjs}"], rules: boundary({ package: "packages/sdk", allow: [] }) },
  // Domain code never imports the HTTP layer, not even for a type.
  {
    files: ["src/**/*.ts"],
    ignores: [...HTTP_LAYER, ...ABOVE_THE_LAYERS],
    rules: layer({
      layer: "domain code",
      refuse: [{ paths: ["src/http"], reason: "the HTTP layer calls the domain, never the reverse" }],
    }),
  },
  // The HTTP layer has no SQL: it reaches the database only through domain functions.
  {
    files: HTTP_LAYER,
    rules: layer({
      layer: "src/http",
      refuse: [
        {
          modules: DATABASE_DRIVERS,
          paths: ["src/db"],
          except: ["src/db/database-error.ts"],
          reason: "routes validate, call one domain function and shape the reply; SQL lives in the domain",
        },
      ],
      handles: ["db", "database"],
    }),
  },
);
