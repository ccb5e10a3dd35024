/**
 * Refunds and payouts through the merchant API (DESIGN.md 14): POST /api/v1/payouts (idempotent on
 * external_id), GET /api/v1/payouts/:id, GET /api/v1/payouts, POST /api/v1/payments/:id/refunds.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { auditOriginOf } from "../../audit-context.js";
import type { Context } from "../../../context.js";
import { createPayout, createRefund } from "../../../payouts/create-payout.js";
import type { PayoutActor } from "../../../payouts/payout-types.js";
import { getPayout, listPayouts, toPayoutReply } from "../../../payouts/read-payouts.js";
import { claimUrl } from "../../../payouts/refund-claim.js";
import { requireMerchant } from "../../plugins/merchant-auth.js";
import {
  createPayoutSchema,
  createRefundSchema,
  getPayoutSchema,
  listPayoutsSchema,
} from "../../schemas/payouts.js";

export const merchantPayoutRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  const actorOf = (merchant: {
    id: string;
    apiKeyPrefix: string;
    apiKeyIssuedBy: string | null;
  }): PayoutActor => ({
    kind: "merchant",
    id: merchant.id,
    label: merchant.apiKeyPrefix,
    keyIssuedBy: merchant.apiKeyIssuedBy,
  });

  app.post("/api/v1/payouts", { schema: createPayoutSchema }, async (request, reply) => {
    const merchant = requireMerchant(request);
    const { payout, created } = await createPayout(
      request.ctx,
      merchant.id,
      actorOf(merchant),
      request.body,
      auditOriginOf(request),
    );
    return reply.status(created ? 201 : 200).send(toPayoutReply(request.ctx, payout));
  });

  app.get("/api/v1/payouts/:id", { schema: getPayoutSchema }, async (request) =>
    toPayoutReply(request.ctx, await getPayout(request.ctx, request.params.id, requireMerchant(request).id)),
  );

  app.get("/api/v1/payouts", { schema: listPayoutsSchema }, async (request) =>
    listPayouts(request.ctx, request.query, requireMerchant(request).id),
  );

  app.post("/api/v1/payments/:id/refunds", { schema: createRefundSchema }, async (request, reply) => {
    const merchant = requireMerchant(request);
    const { payout, claimToken } = await createRefund(
      request.ctx,
      { orderId: request.params.id, merchantId: merchant.id },
      actorOf(merchant),
      request.body,
      auditOriginOf(request),
    );
    return reply
      .status(201)
      .send({ ...toPayoutReply(request.ctx, payout), claim_url: claimUrl(request.ctx, claimToken) });
  });
};
