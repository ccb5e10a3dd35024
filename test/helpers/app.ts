/**
 * build(t)-style helper: a real app on a fresh database per test file, closed after it.
 */
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { Config } from "../../src/config.js";
import { createContext, type Context } from "../../src/context.js";
import { buildApp } from "../../src/http/app.js";
import { createLogger, type Logger } from "../../src/logger.js";
import { FakeClock } from "./clock.js";
import { testConfig } from "./config.js";
import { createTestDatabase, type TestDatabase } from "./db.js";

export interface TestApp {
  app: FastifyInstance;
  ctx: Context;
  clock: FakeClock;
  testDb: TestDatabase;
  close(): Promise<void>;
}

export async function createTestApp(
  options: { config?: Config; env?: Record<string, string>; log?: Logger; clock?: FakeClock } = {},
): Promise<TestApp> {
  const config = options.config ?? testConfig(options.env);
  const testDb = await createTestDatabase();
  const clock = options.clock ?? new FakeClock();
  const ctx = await createContext(config, {
    database: testDb.database,
    clock,
    log: options.log ?? createLogger({ level: "silent" }),
  });
  const app = await buildApp(ctx);
  await app.ready();
  return {
    app,
    ctx,
    clock,
    testDb,
    async close() {
      await app.close();
      await testDb.drop();
    },
  };
}

/** Listens on a free port of `host` and answers the base URL (`http://host:port`). */
export async function listenLocal(app: FastifyInstance, host = "127.0.0.1"): Promise<string> {
  await app.listen({ port: 0, host });
  return `http://${host}:${(app.server.address() as AddressInfo).port}`;
}
