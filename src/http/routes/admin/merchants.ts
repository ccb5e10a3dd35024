/**
 * /api/v1/admin/merchants (SPEC.md 4.4). Registered inside the admin session scope. Handlers resolve
 * the deprecated camelCase aliases (snake_case wins), call one domain function and shape the reply;
 * webhook_secret appears only in the create reply.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { createMerchant } from "../../../merchants/create-merchant.js";
import type { BalanceBreakdown } from "../../../ledger/balance-breakdown.js";
import { getMerchantDetail } from "../../../merchants/get-merchant-detail.js";
import { listMerchants } from "../../../merchants/list-merchants.js";
import { rotateApiKey } from "../../../merchants/rotate-api-key.js";
import { updateMerchant } from "../../../merchants/update-merchant.js";
import { formatAmount } from "../../../money.js";
import { toAdminOrderSummary } from "../../../orders/list-admin-orders.js";
import { formatPercent } from "../../../percent.js";
import { createMerchantSchema } from "../../schemas/create-merchant.js";
import { getMerchantDetailSchema } from "../../schemas/get-merchant-detail.js";
import { listMerchantsSchema } from "../../schemas/list-merchants.js";
import { formatBalance, formatBalances } from "../../schemas/merchant-fields.js";
import { rotateApiKeySchema } from "../../schemas/rotate-api-key.js";
import { updateMerchantSchema } from "../../schemas/update-merchant.js";
import { toMerchantSummary } from "./merchant-replies.js";
import { auditOriginOf } from "../../audit-context.js";

export const adminMerchantRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/merchants",
    { schema: listMerchantsSchema, config: { permission: "merchants.read" } },
    async (request) => {
      const entries = await listMerchants(request.ctx);
      return {
        data: entries.map(({ merchant, orderCount }) => ({
          ...toMerchantSummary(merchant),
          order_count: orderCount,
        })),
      };
    },
  );

  app.post(
    "/api/v1/admin/merchants",
    { schema: createMerchantSchema, config: { permission: "merchants.create" } },
    async (request, reply) => {
      const body = request.body;
      const { merchant, apiKey } = await createMerchant(
        request.ctx,
        {
          name: body.name,
          // The schema guarantees one of the two is present.
          webhookSecret: (body.webhook_secret ?? body.webhookSecret) as string,
        },
        auditOriginOf(request),
      );
      return reply.status(201).send({
        id: merchant.id,
        name: merchant.name,
        api_key: apiKey,
        api_key_prefix: merchant.apiKeyPrefix,
        webhook_secret: merchant.webhookSecret,
        is_active: merchant.isActive,
        created_at: merchant.createdAt.toISOString(),
      });
    },
  );

  app.get(
    "/api/v1/admin/merchants/:id",
    { schema: getMerchantDetailSchema, config: { permission: "merchants.read" } },
    async (request) => {
      const {
        merchant,
        stats,
        recentOrders,
        recentIncidents,
        balance,
        balances,
        balanceBreakdown,
        balanceBreakdowns,
      } = await getMerchantDetail(request.ctx, { id: request.params.id });
      return {
        ...toMerchantSummary(merchant),
        order_count: stats.orderCount,
        completed_count: stats.completedCount,
        callback_failed_count: stats.callbackFailedCount,
        active_order_count: stats.activeOrderCount,
        total_received: formatAmount(stats.totalReceived),
        last_order_at: stats.lastOrderAt?.toISOString() ?? null,
        success_rate: formatPercent(stats.completedCount, stats.orderCount),
        incident_count: stats.incidentCount,
        balance: formatBalance(balance),
        balances: formatBalances(balances),
        balance_breakdown: formatBreakdown(balanceBreakdown),
        balance_breakdowns: Object.fromEntries(
          Object.entries(balanceBreakdowns).map(([currency, lines]) => [currency, formatBreakdown(lines)]),
        ),
        recent_orders: recentOrders.map((order) => toAdminOrderSummary(order, merchant.name)),
        recent_incidents: recentIncidents.map((incident) => ({
          id: incident.id,
          created_at: incident.createdAt.toISOString(),
          event_type: incident.eventType,
          payload: incident.payload,
          order_id: incident.orderId,
          order_status: incident.orderStatus,
          external_id: incident.externalId,
          merchant_name: merchant.name,
        })),
      };
    },
  );

  app.put(
    "/api/v1/admin/merchants/:id",
    { schema: updateMerchantSchema, config: { permission: "merchants.update" } },
    async (request) => {
      const body = request.body ?? {};
      const merchant = await updateMerchant(
        request.ctx,
        {
          id: request.params.id,
          name: body.name,
          isActive: body.is_active ?? body.isActive,
          webhookSecret: body.webhook_secret ?? body.webhookSecret,
        },
        auditOriginOf(request),
        {
          operator: request.operator,
          totpCode: body.totp_code,
          passkey: body.passkey,
          origin: auditOriginOf(request),
        },
      );
      return toMerchantSummary(merchant);
    },
  );

  app.post(
    "/api/v1/admin/merchants/:id/rotate-api-key",
    { schema: rotateApiKeySchema, config: { permission: "merchants.rotate_key" } },
    async (request) => {
      // Step-up (DESIGN.md 12): an enrolled operator confirms with a fresh code; the body is optional.
      const { merchant, apiKey } = await rotateApiKey(
        request.ctx,
        { id: request.params.id },
        auditOriginOf(request),
        {
          operator: request.operator,
          totpCode: request.body?.totp_code,
          passkey: request.body?.passkey,
          origin: auditOriginOf(request),
        },
      );
      return {
        id: merchant.id,
        name: merchant.name,
        api_key: apiKey,
        api_key_prefix: merchant.apiKeyPrefix,
      };
    },
  );
};

/** A balance breakdown's lines as 6-decimal strings. */
function formatBreakdown(lines: BalanceBreakdown): Record<keyof BalanceBreakdown, string> {
  return Object.fromEntries(
    Object.entries(lines).map(([line, amount]) => [line, formatAmount(amount)]),
  ) as Record<keyof BalanceBreakdown, string>;
}
