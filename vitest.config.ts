import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts", "devnet/**/*.test.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more parallel files only thrash the CPU and make timing-sensitive tests flaky.
    maxWorkers: 2,
  },
});
