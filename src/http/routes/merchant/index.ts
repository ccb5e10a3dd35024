/**
 * The merchant API (X-API-Key). Every route registered here sits behind the API-key plugin.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";

export const merchantRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  void ctx;
  void app;
};
