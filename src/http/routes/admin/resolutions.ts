/**
 * Order resolutions and stray transfers (DESIGN.md 13), inside the admin session scope: cancel,
 * accept (resolve), attach a stray transfer, and the stray-transfer list, detail and dismissal.
 * Each handler validates, calls one domain function and answers the order detail (or the stray).
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { resolveAdminOrder } from "../../../orders/resolve-admin-order.js";
import { dismissStrayTransfer } from "../../../strays/dismiss-stray-transfer.js";
import { getStrayTransfer } from "../../../strays/get-stray-transfer.js";
import { listStrayTransfers } from "../../../strays/list-stray-transfers.js";
import { resolutionBy } from "../../actors.js";
import {
  adminCancelOrderSchema,
  attachTransferSchema,
  dismissStrayTransferSchema,
  getStrayTransferSchema,
  listStrayTransfersSchema,
  resolveOrderSchema,
} from "../../schemas/resolutions.js";

export const adminResolutionRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.post(
    "/api/v1/admin/orders/:id/cancel",
    { schema: adminCancelOrderSchema, config: { permission: "orders.cancel" } },
    async (request) =>
      resolveAdminOrder(
        request.ctx,
        {
          kind: "cancel",
          input: { orderId: request.params.id, ...resolutionBy(request), reason: request.body.reason },
        },
        request.operator.role,
      ),
  );

  app.post(
    "/api/v1/admin/orders/:id/resolve",
    { schema: resolveOrderSchema, config: { permission: "orders.resolve" } },
    async (request) =>
      resolveAdminOrder(
        request.ctx,
        {
          kind: "accept",
          input: { orderId: request.params.id, ...resolutionBy(request), reason: request.body.reason },
        },
        request.operator.role,
      ),
  );

  app.post(
    "/api/v1/admin/orders/:id/attach-transfer",
    { schema: attachTransferSchema, config: { permission: "orders.resolve" } },
    async (request) =>
      resolveAdminOrder(
        request.ctx,
        {
          kind: "attach",
          input: {
            orderId: request.params.id,
            txHash: request.body.tx_hash,
            logIndex: request.body.log_index,
            ...resolutionBy(request),
            reason: request.body.reason,
          },
        },
        request.operator.role,
      ),
  );

  app.get(
    "/api/v1/admin/stray-transfers",
    { schema: listStrayTransfersSchema, config: { permission: "strays.read" } },
    async (request) => listStrayTransfers(request.ctx, request.query),
  );

  app.get(
    "/api/v1/admin/stray-transfers/:id",
    { schema: getStrayTransferSchema, config: { permission: "strays.read" } },
    async (request) => getStrayTransfer(request.ctx, request.params.id),
  );

  app.post(
    "/api/v1/admin/stray-transfers/:id/dismiss",
    { schema: dismissStrayTransferSchema, config: { permission: "strays.resolve" } },
    async (request) =>
      dismissStrayTransfer(request.ctx, {
        id: request.params.id,
        ...resolutionBy(request),
        reason: request.body.reason,
      }),
  );
};
