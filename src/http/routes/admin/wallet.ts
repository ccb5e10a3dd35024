/**
 * /api/v1/admin/wallet and the retry-sweeps (an order's, a stray transfer's address's): registered
 * inside the admin session scope.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { retryStraySweep } from "../../../strays/retry-stray-sweep.js";
import { retrySweep } from "../../../sweeps/retry-sweep.js";
import { getWalletStatus } from "../../../wallet/get-wallet-status.js";
import { getWalletSchema, retryStraySweepSchema, retrySweepSchema } from "../../schemas/admin-wallet.js";
import { auditOriginOf } from "../../audit-context.js";

export const adminWalletRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/wallet",
    { schema: getWalletSchema, config: { permission: "wallet.read" } },
    async (request) => getWalletStatus(request.ctx),
  );

  app.post(
    "/api/v1/admin/orders/:id/retry-sweep",
    { schema: retrySweepSchema, config: { permission: "orders.retry_sweep" } },
    async (request) => {
      await retrySweep(request.ctx, request.params.id, auditOriginOf(request));
      return { ok: true as const };
    },
  );

  app.post(
    "/api/v1/admin/stray-transfers/:id/retry-sweep",
    { schema: retryStraySweepSchema, config: { permission: "strays.retry_sweep" } },
    async (request) => retryStraySweep(request.ctx, request.params.id, auditOriginOf(request)),
  );
};
