import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The workspace packages resolve to their TypeScript sources (as tsconfig.json's paths do for tsc and
// tsx), so tests need no build; their package.json exports point at dist/ for the packed tarballs.
const packages = fileURLToPath(new URL("./packages/", import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@stablegate\/(tron|sdk|devnet)$/, replacement: `${packages}$1/src/index.ts` },
      { find: /^@stablegate\/(tron|sdk|devnet)\/([\w-]+)$/, replacement: `${packages}$1/src/$2.ts` },
    ],
  },
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts", "packages/*/src/**/*.test.ts"],
    pool: "forks",
    // Every response of an in-process app is checked against docs/openapi.json (the contract).
    setupFiles: ["test/helpers/contract-setup.ts"],
    testTimeout: 30_000,
    // expect.poll's default deadline is 1 s: on a loaded two-core machine a page or a worker can
    // take longer to show a state that is still coming (a browser test failed once so). A poll that
    // times out still prints the last value it saw.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
    // Two cores: more parallel files only thrash the CPU and make timing-sensitive tests flaky.
    maxWorkers: 2,
  },
});
