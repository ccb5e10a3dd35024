/** /api/v1/admin/deposit-addresses and /api/v1/admin/deposits: the admin twins (DESIGN.md 15). */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { auditOriginOf } from "../../audit-context.js";
import { getDepositAddress } from "../../../deposits/get-deposit-address.js";
import { listDepositAddresses } from "../../../deposits/list-deposit-addresses.js";
import { listDeposits } from "../../../deposits/list-deposits.js";
import { setDepositAddressStatus } from "../../../deposits/set-deposit-address-status.js";
import {
  adminGetDepositAddressSchema,
  adminListDepositAddressesSchema,
  adminListDepositsSchema,
  adminSetDepositAddressStatusSchema,
} from "../../schemas/deposit-addresses.js";

export const adminDepositAddressRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/deposit-addresses",
    { schema: adminListDepositAddressesSchema, config: { permission: "deposit_addresses.read" } },
    async (request) =>
      listDepositAddresses(request.ctx, {
        page: request.query.page,
        limit: request.query.limit,
        customerRef: request.query.customer_ref,
        merchantId: request.query.merchant_id,
        status: request.query.status,
      }),
  );

  app.get(
    "/api/v1/admin/deposit-addresses/:id",
    { schema: adminGetDepositAddressSchema, config: { permission: "deposit_addresses.read" } },
    async (request) => getDepositAddress(request.ctx, undefined, request.params.id),
  );

  for (const action of ["disable", "enable"] as const) {
    app.post(
      `/api/v1/admin/deposit-addresses/:id/${action}`,
      {
        schema: adminSetDepositAddressStatusSchema(action),
        config: { permission: "deposit_addresses.manage" },
      },
      async (request) =>
        setDepositAddressStatus(
          request.ctx,
          undefined,
          request.params.id,
          action === "disable" ? "disabled" : "active",
          auditOriginOf(request),
        ),
    );
  }

  app.get(
    "/api/v1/admin/deposits",
    { schema: adminListDepositsSchema, config: { permission: "deposit_addresses.read" } },
    async (request) =>
      listDeposits(request.ctx, {
        page: request.query.page,
        limit: request.query.limit,
        depositAddressId: request.query.deposit_address_id,
        customerRef: request.query.customer_ref,
        status: request.query.status,
        merchantId: request.query.merchant_id,
      }),
  );
};
