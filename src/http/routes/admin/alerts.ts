/** GET /api/v1/admin/alerts: registered inside the admin session scope. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { listAlerts } from "../../../alerts/list-alerts.js";
import type { Context } from "../../../context.js";
import { listAlertsSchema } from "../../schemas/admin-alerts.js";

export const adminAlertRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  app.get(
    "/api/v1/admin/alerts",
    { schema: listAlertsSchema, config: { permission: "alerts.read" } },
    async () => listAlerts(ctx),
  );
};
