/** /api/v1/admin/search: registered inside the admin session scope. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { searchAdmin } from "../../../search/search-admin.js";
import { adminSearchSchema } from "../../schemas/admin-search.js";

export const adminSearchRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/search",
    { schema: adminSearchSchema, config: { permission: "orders.read" } },
    async (request) => ({ query: request.query.q, data: await searchAdmin(request.ctx, request.query.q) }),
  );
};
