/**
 * /api/v1/deposit-addresses and /api/v1/deposits (DESIGN.md 15). Registered inside the merchant
 * scope, behind the API key, and inside the rate-limited scope (./index.ts).
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { createDepositAddress, strip } from "../../../deposits/create-deposit-address.js";
import { getDepositAddress } from "../../../deposits/get-deposit-address.js";
import { listDepositAddresses } from "../../../deposits/list-deposit-addresses.js";
import { getDeposit, listDeposits } from "../../../deposits/list-deposits.js";
import { setDepositAddressStatus } from "../../../deposits/set-deposit-address-status.js";
import { auditOriginOf } from "../../audit-context.js";
import { requireMerchant } from "../../plugins/merchant-auth.js";
import {
  createDepositAddressSchema,
  getDepositAddressSchema,
  getDepositSchema,
  listDepositAddressesSchema,
  listDepositsSchema,
  setDepositAddressStatusSchema,
  simulateDepositSchema,
} from "../../schemas/deposit-addresses.js";
import { simulateDeposit } from "../../../deposits/simulate-deposit.js";

export const depositAddressRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.post("/api/v1/deposit-addresses", { schema: createDepositAddressSchema }, async (request, reply) => {
    const body = request.body;
    const { depositAddress, created } = await createDepositAddress(
      request.ctx,
      requireMerchant(request).id,
      {
        customerRef: body.customer_ref,
        callbackUrl: body.callback_url,
        metadata: body.metadata,
        notifyDetected: body.notify_detected,
        chain: body.chain,
        currency: body.currency,
      },
      auditOriginOf(request),
    );
    return reply.status(created ? 201 : 200).send(depositAddress);
  });

  app.get("/api/v1/deposit-addresses/:id", { schema: getDepositAddressSchema }, async (request) =>
    strip(await getDepositAddress(request.ctx, requireMerchant(request).id, request.params.id)),
  );

  app.get("/api/v1/deposit-addresses", { schema: listDepositAddressesSchema }, async (request) => {
    const page = await listDepositAddresses(request.ctx, {
      merchantId: requireMerchant(request).id,
      page: request.query.page,
      limit: request.query.limit,
      customerRef: request.query.customer_ref,
      status: request.query.status,
    });
    return { data: page.data.map(strip), pagination: page.pagination };
  });

  for (const action of ["disable", "enable"] as const) {
    app.post(
      `/api/v1/deposit-addresses/:id/${action}`,
      { schema: setDepositAddressStatusSchema(action) },
      async (request) =>
        strip(
          await setDepositAddressStatus(
            request.ctx,
            requireMerchant(request).id,
            request.params.id,
            action === "disable" ? "disabled" : "active",
            auditOriginOf(request),
          ),
        ),
    );
  }

  // Sandbox (devnet only; NOT_FOUND elsewhere).
  app.post(
    "/api/v1/deposit-addresses/:id/simulate",
    { schema: simulateDepositSchema },
    async (request, reply) =>
      reply.status(202).send(
        await simulateDeposit(
          request.ctx,
          {
            depositAddressId: request.params.id,
            merchantId: requireMerchant(request).id,
            amount: request.body.amount,
          },
          auditOriginOf(request),
        ),
      ),
  );

  app.get("/api/v1/deposits", { schema: listDepositsSchema }, async (request) => {
    const page = await listDeposits(request.ctx, {
      merchantId: requireMerchant(request).id,
      page: request.query.page,
      limit: request.query.limit,
      depositAddressId: request.query.deposit_address_id,
      customerRef: request.query.customer_ref,
      status: request.query.status,
    });
    return { data: page.data.map(strip), pagination: page.pagination };
  });

  app.get("/api/v1/deposits/:id", { schema: getDepositSchema }, async (request) =>
    strip(await getDeposit(request.ctx, requireMerchant(request).id, request.params.id)),
  );
};
