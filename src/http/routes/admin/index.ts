/**
 * Everything under /api/v1/admin. Login and logout are public; every other admin route is
 * registered inside the session scope, so none can be mounted without the cookie check.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";

export const adminRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  void ctx;
  void app;
};
