/** Public routes: no authentication. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { checkoutRoutes } from "./checkout.js";
import { healthRoutes } from "./health.js";
import { refundClaimRoutes } from "./refund-claim.js";

export const publicRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  await app.register(healthRoutes, { ctx });
  await app.register(checkoutRoutes, { ctx });
  await app.register(refundClaimRoutes, { ctx });
};
