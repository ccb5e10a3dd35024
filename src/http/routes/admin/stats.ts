/** /api/v1/admin/stats, /stats/daily and /incidents: registered inside the admin session scope. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { listDisabledDepositIncidents } from "../../../deposits/list-deposits.js";
import { listIncidents } from "../../../orders/list-incidents.js";
import { listStrayIncidents } from "../../../strays/list-stray-transfers.js";
import { getDailyStats } from "../../../stats/get-daily-stats.js";
import { getStats } from "../../../stats/get-stats.js";
import { getDailyStatsSchema, getStatsSchema, listIncidentsSchema } from "../../schemas/admin-stats.js";

export const adminStatsRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/stats",
    { schema: getStatsSchema, config: { permission: "stats.read" } },
    async (request) => getStats(request.ctx),
  );
  app.get(
    "/api/v1/admin/stats/daily",
    { schema: getDailyStatsSchema, config: { permission: "stats.read" } },
    async (request) => getDailyStats(request.ctx),
  );
  app.get(
    "/api/v1/admin/incidents",
    { schema: listIncidentsSchema, config: { permission: "stats.read" } },
    async (request) => {
      const [data, strays, disabledDeposits] = await Promise.all([
        listIncidents(request.ctx),
        listStrayIncidents(request.ctx),
        listDisabledDepositIncidents(request.ctx),
      ]);
      return { data, stray_transfers: strays, deposits_to_disabled_addresses: disabledDeposits };
    },
  );
};
