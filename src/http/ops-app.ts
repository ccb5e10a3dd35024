/**
 * The worker role's HTTP listener: only GET /metrics (this process's own metrics: scanner, sweeps,
 * webhook attempts, node calls) and the health routes, so a container orchestrator can probe a
 * worker like an api process and Prometheus can scrape it. No merchant, admin or web routes.
 */
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { zodSchemaController } from "./zod-compilers.js";
import type { Context } from "../context.js";
import type { App } from "./app.js";
import { registerErrorHandling } from "./errors.js";
import { registerRequestHooks } from "./request-hooks.js";
import { healthRoutes } from "./routes/public/health.js";
import { metricsRoutes } from "./routes/metrics.js";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

export async function buildOpsApp(ctx: Context): Promise<App> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    bodyLimit: 1024,
    genReqId: (req) => {
      const incoming = req.headers["x-request-id"];
      return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    requestIdHeader: false,
    return503OnClosing: true,
    schemaController: zodSchemaController,
  }).withTypeProvider<ZodTypeProvider>();
  registerErrorHandling(app);
  registerRequestHooks(app as unknown as FastifyInstance, ctx);
  await app.register(healthRoutes, { ctx });
  await app.register(metricsRoutes, { ctx });
  return app;
}
