/**
 * Refunds and payouts through the merchant API (DESIGN.md 14): POST /api/v1/payouts (idempotent on
 * external_id), GET /api/v1/payouts/:id, GET /api/v1/payouts, POST /api/v1/payments/:id/refunds.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { auditOriginOf } from "../../audit-context.js";
import type { Context } from "../../../context.js";
import { createPayout, createRefund } from "../../../payouts/create-payout.js";
import type { PayoutActor, PayoutStatus } from "../../../payouts/payout-types.js";
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
  const actorOf = (merchant: { id: string; apiKeyPrefix: string }): PayoutActor => ({
    kind: "merchant",
    id: merchant.id,
    label: merchant.apiKeyPrefix,
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

  app.get("/api/v1/payouts", { schema: listPayoutsSchema }, async (request) => {
    const q = request.query;
    const { rows, nextCursor } = await listPayouts(request.ctx, {
      merchantId: requireMerchant(request).id,
      kind: q.kind,
      status: q.status?.split(",") as PayoutStatus[] | undefined,
      orderId: q.order_id,
      limit: q.limit,
      cursor: q.cursor,
    });
    return { data: rows.map((row) => toPayoutReply(request.ctx, row)), next_cursor: nextCursor };
  });

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
