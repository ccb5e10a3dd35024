/** GET /api/v1/admin/audit: registered inside the admin session scope. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { listAudit } from "../../../audit/list-audit.js";
import { listAuditSchema } from "../../schemas/admin-operators.js";

export const adminAuditRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/audit",
    { schema: listAuditSchema, config: { permission: "audit.read" } },
    async (request) => {
      const query = request.query;
      return listAudit(request.ctx, {
        page: query.page,
        limit: query.limit,
        actor: query.actor,
        action: query.action,
        targetType: query.target_type,
        targetId: query.target_id,
        from: query.from,
        to: query.to,
      });
    },
  );
};
