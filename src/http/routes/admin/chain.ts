/** GET /api/v1/admin/chain: registered inside the admin session scope. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { getChainOverview } from "../../../chain/chain-overview.js";
import type { Context } from "../../../context.js";
import { getChainSchema } from "../../schemas/admin-chain.js";

export const adminChainRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  app.get("/api/v1/admin/chain", { schema: getChainSchema, config: { permission: "chain.read" } }, async () =>
    getChainOverview(ctx),
  );
};
