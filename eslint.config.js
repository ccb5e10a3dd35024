import js from "@eslint/js";
import tseslint from "typescript-eslint";
import boundaries from "./scripts/eslint-package-boundaries.js";

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
  { plugins: { stablegate: boundaries } },
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
);
