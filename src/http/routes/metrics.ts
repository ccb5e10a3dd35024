/**
 * GET /metrics: this process's Prometheus text (DESIGN.md 2 and 11). With METRICS_TOKEN set it
 * requires `Authorization: Bearer <token>`; in production without a token it does not exist (404),
 * so metrics are never public by accident; in development without a token it is open.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsync } from "fastify";
import type { Context } from "../../context.js";
import { AppError } from "../../errors.js";

export const metricsRoutes: FastifyPluginAsync<{ ctx: Context }> = async (app, { ctx }) => {
  const token = ctx.config.metricsToken;
  const expected = token === undefined ? undefined : digest(token);
  app.get("/metrics", { schema: { hide: true } }, async (request, reply) => {
    if (expected === undefined) {
      if (ctx.config.isProduction) throw new AppError("NOT_FOUND", "route GET /metrics not found");
    } else {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
      // Digests of equal length, so the comparison time says nothing about the token.
      if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
        reply.header("WWW-Authenticate", 'Bearer realm="metrics"');
        throw new AppError("METRICS_UNAUTHORIZED", "metrics need Authorization: Bearer <METRICS_TOKEN>");
      }
    }
    const body = await ctx.metrics.registry.metrics();
    return reply.header("Content-Type", ctx.metrics.registry.contentType).send(body);
  });
};

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}
