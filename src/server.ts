/**
 * The process: opens the context, listens (api role), starts the loops (worker role) and shuts down
 * gracefully on SIGTERM/SIGINT: stop accepting, finish in-flight requests and tasks, close the pool.
 */
import type { FastifyInstance } from "fastify";
import type { Config } from "./config.js";
import { createContext, type Context } from "./context.js";
import { buildApp } from "./http/app.js";
import { startWorkers, type Workers } from "./workers/index.js";

export type Role = "all" | "api" | "worker";

export interface RunningService {
  ctx: Context;
  app: FastifyInstance | undefined;
  url: string | undefined;
  stop(): Promise<void>;
}

export async function startService(config: Config, role: Role): Promise<RunningService> {
  const ctx = await createContext(config);
  let app: FastifyInstance | undefined;
  let workers: Workers | undefined;
  let url: string | undefined;
  try {
    if (role === "all" || role === "api") {
      app = await buildApp(ctx);
      url = await app.listen({ port: config.port, host: config.host });
    }
    if (role === "all" || role === "worker") workers = await startWorkers(ctx);
  } catch (error) {
    await app?.close();
    await ctx.database.close();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    ctx,
    app,
    url,
    stop() {
      stopping ??= (async () => {
        await app?.close();
        await workers?.stop();
        await ctx.database.close();
      })();
      return stopping;
    },
  };
}
