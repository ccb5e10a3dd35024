/**
 * The refund claim API behind the public page /refund/:token (DESIGN.md 14): no authentication;
 * the unguessable token is the credential (only its hash is stored).
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { requestMeta } from "../../audit-context.js";
import { getRefundClaim, submitRefundClaim } from "../../../payouts/refund-claim.js";
import { getRefundClaimSchema, submitRefundClaimSchema } from "../../schemas/payouts.js";

export const refundClaimRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get("/api/v1/refund-claims/:token", { schema: getRefundClaimSchema }, async (request) =>
    getRefundClaim(request.ctx, request.params.token),
  );
  app.post("/api/v1/refund-claims/:token", { schema: submitRefundClaimSchema }, async (request) =>
    submitRefundClaim(request.ctx, request.params.token, request.body.address, requestMeta(request)),
  );
};
