/** /api/v1/admin/stats, /stats/daily and /incidents: registered inside the admin session scope. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { getDailyStats } from "../../../stats/get-daily-stats.js";
import { getIncidents } from "../../../stats/get-incidents.js";
import { getStats } from "../../../stats/get-stats.js";
import { getDailyStatsSchema, getStatsSchema, listIncidentsSchema } from "../../schemas/admin-stats.js";

export const adminStatsRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/stats",
    { schema: getStatsSchema, config: { permission: "stats.read" } },
    async (request) => getStats(request.ctx, request.query),
  );
  app.get(
    "/api/v1/admin/stats/daily",
    { schema: getDailyStatsSchema, config: { permission: "stats.read" } },
    async (request) => getDailyStats(request.ctx, request.query),
  );
  app.get(
    "/api/v1/admin/incidents",
    { schema: listIncidentsSchema, config: { permission: "stats.read" } },
    async (request) => {
      const incidents = await getIncidents(request.ctx);
      return {
        data: incidents.orders,
        stray_transfers: incidents.strayTransfers,
        deposits_to_disabled_addresses: incidents.depositsToDisabledAddresses,
        failing_webhooks: incidents.failingWebhooks,
      };
    },
  );
};
