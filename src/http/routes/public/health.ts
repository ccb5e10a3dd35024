import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Context } from "../../../context.js";
import { checkHealth } from "../../../health/check-health.js";

const healthReply = z.object({
  status: z.enum(["ok", "degraded", "unavailable"]),
  checks: z.record(z.string(), z.unknown()),
});

export const healthRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/health",
    { schema: { tags: ["public"], response: { 200: healthReply, 503: healthReply } } },
    async (request, reply) => {
      const health = await checkHealth(request.ctx);
      return reply.status(health.status === "unavailable" ? 503 : 200).send(health);
    },
  );
  app.get(
    "/api/v1/health/live",
    { schema: { tags: ["public"], response: { 200: z.object({ status: z.literal("ok") }) } } },
    async () => ({ status: "ok" as const }),
  );
};
