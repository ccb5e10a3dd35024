/**
 * The merchant API (X-API-Key). Every route registered here sits behind the API-key plugin.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { merchantAuth } from "../../plugins/merchant-auth.js";
import { merchantMeRoutes } from "./me.js";
import { paymentRoutes } from "./payments.js";
import { merchantPayoutRoutes } from "./payouts.js";

export const merchantRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  await app.register(merchantAuth, { ctx });
  await app.register(merchantMeRoutes, { ctx });
  await app.register(paymentRoutes, { ctx });
  await app.register(merchantPayoutRoutes, { ctx });
};
