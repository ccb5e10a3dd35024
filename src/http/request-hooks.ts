/**
 * Hooks every HTTP server of the service installs (the api app and the worker's ops listener):
 * request.ctx, the app context with the request's logger, so every line a request causes carries its
 * reqId; and the request duration histogram, labelled by route pattern (never the raw URL, whose ids
 * would make one series per order).
 */
import type { FastifyInstance } from "fastify";
import type { Context } from "../context.js";
import type { Logger } from "../logger.js";

declare module "fastify" {
  interface FastifyRequest {
    /**
     * The context for this request's domain calls: the app's context with the request's logger. It
     * shares the app context's `local`, so the process's caches outlive the request.
     */
    ctx: Context;
  }
}

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function registerRequestHooks(app: FastifyInstance, ctx: Context): void {
  app.decorateRequest("ctx", null as unknown as Context);
  app.addHook("onRequest", async (request, reply) => {
    request.ctx = { ...ctx, log: request.log as unknown as Logger };
    reply.header("X-Request-Id", request.id);
  });
  const duration = ctx.metrics.httpRequestDuration;
  app.addHook("onResponse", (request, reply, done) => {
    duration.observe(
      {
        method: KNOWN_METHODS.has(request.method) ? request.method : "other",
        route: request.routeOptions.url ?? "unmatched",
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
