/** GET /api/v1/checkout/:id/status: public, polled by the checkout page; never cached. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { getCheckoutStatus } from "../../../payments/get-checkout-status.js";
import { checkoutStatusSchema } from "../../schemas/checkout.js";

export const checkoutRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get("/api/v1/checkout/:id/status", { schema: checkoutStatusSchema }, async (request, reply) => {
    reply.header("Cache-Control", "no-store");
    return getCheckoutStatus(request.ctx, request.params.id);
  });
};
