import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts", "devnet/**/*.test.ts"],
    pool: "forks",
    // Every response of an in-process app is checked against docs/openapi.json (the contract).
    setupFiles: ["test/helpers/contract-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more parallel files only thrash the CPU and make timing-sensitive tests flaky.
    maxWorkers: 2,
  },
});
