/** /api/v1/admin/orders: registered inside the admin session scope. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { getAdminOrder } from "../../../orders/get-admin-order.js";
import { listAdminOrders } from "../../../orders/list-admin-orders.js";
import { simulatePayment } from "../../../payments/simulate-payment.js";
import { getAdminOrderSchema, listAdminOrdersSchema } from "../../schemas/admin-orders.js";
import { adminSimulatePaymentSchema } from "../../schemas/simulate-payment.js";
import { auditOriginOf } from "../../audit-context.js";

export const adminOrderRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/orders",
    { schema: listAdminOrdersSchema, config: { permission: "orders.read" } },
    async (request) => {
      const query = request.query;
      return listAdminOrders(request.ctx, {
        page: query.page,
        limit: query.limit,
        status: query.status,
        // snake_case wins when both forms are sent
        merchantId: query.merchant_id ?? query.merchantId,
        chain: query.chain,
        currency: query.currency,
        from: query.from,
        to: query.to,
      });
    },
  );

  app.get(
    "/api/v1/admin/orders/:id",
    { schema: getAdminOrderSchema, config: { permission: "orders.read" } },
    async (request) => getAdminOrder(request.ctx, request.params.id, request.operator.role),
  );

  // Sandbox (devnet only; NOT_FOUND elsewhere): the dashboard's "Simulate payment".
  app.post(
    "/api/v1/admin/orders/:id/simulate",
    { schema: adminSimulatePaymentSchema, config: { permission: "orders.simulate" } },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await simulatePayment(
            request.ctx,
            { orderId: request.params.id, amount: request.body?.amount },
            auditOriginOf(request),
          ),
        ),
  );
};
