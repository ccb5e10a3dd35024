/**
 * /api/v1/payments (DESIGN.md 3). Registered inside the merchant scope, so merchant-auth has set
 * request.merchant before these handlers run, and inside the rate-limited scope (./index.ts).
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { createOrder } from "../../../payments/create-order.js";
import { cancelMerchantOrder } from "../../../payments/cancel-merchant-order.js";
import { getOrder } from "../../../payments/get-order.js";
import { listOrders } from "../../../payments/list-orders.js";
import { simulatePayment } from "../../../payments/simulate-payment.js";
import { resolutionBy } from "../../actors.js";
import { requireMerchant } from "../../plugins/merchant-auth.js";
import { cancelPaymentSchema } from "../../schemas/resolutions.js";
import { createPaymentSchema, getPaymentSchema, listPaymentsSchema } from "../../schemas/payments.js";
import { simulatePaymentSchema } from "../../schemas/simulate-payment.js";
import { auditOriginOf } from "../../audit-context.js";

export const paymentRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  app.post(
    "/api/v1/payments",
    { schema: createPaymentSchema, config: { verifiesApiKeyInStatement: true } },
    async (request, reply) => {
      const body = request.body;
      const merchant = requireMerchant(request);
      const { order, created } = await createOrder(
        request.ctx,
        { id: merchant.id, apiKeyHash: request.apiKeyHash },
        {
          externalId: body.external_id,
          amount: body.amount,
          currency: body.currency,
          chain: body.chain,
          callbackUrl: body.callback_url,
          expiresIn: body.expires_in,
          metadata: body.metadata,
        },
      );
      return reply.status(created ? 201 : 200).send(order);
    },
  );

  app.get("/api/v1/payments/:id", { schema: getPaymentSchema }, async (request) =>
    getOrder(request.ctx, requireMerchant(request).id, request.params.id),
  );

  app.get("/api/v1/payments", { schema: listPaymentsSchema }, async (request) => {
    const query = request.query;
    return listOrders(request.ctx, requireMerchant(request).id, {
      page: query.page,
      limit: query.limit,
      status: query.status,
      externalId: query.external_id,
      from: query.from,
      to: query.to,
    });
  });

  app.post("/api/v1/payments/:id/cancel", { schema: cancelPaymentSchema }, async (request) =>
    cancelMerchantOrder(request.ctx, {
      orderId: request.params.id,
      merchantId: requireMerchant(request).id,
      ...resolutionBy(request),
      reason: request.body.reason,
    }),
  );

  // Sandbox (devnet only; NOT_FOUND elsewhere): pays the order from the devnet faucet.
  app.post("/api/v1/payments/:id/simulate", { schema: simulatePaymentSchema }, async (request, reply) => {
    const paid = await simulatePayment(
      ctx,
      {
        orderId: request.params.id,
        merchantId: requireMerchant(request).id,
        amount: request.body?.amount,
      },
      auditOriginOf(request),
    );
    return reply.status(202).send(paid);
  });
};
