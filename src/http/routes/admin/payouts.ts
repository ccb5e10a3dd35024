/**
 * The admin side of refunds and payouts (DESIGN.md 14): list, detail, approve, reject, cancel, the
 * refund twin and the webhook re-drive. Approval is four-eyes (the creator never approves).
 */
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { auditActorOf, auditOriginOf } from "../../audit-context.js";
import type { Context } from "../../../context.js";
import { createRefund } from "../../../payouts/create-payout.js";
import { createStrayRefund } from "../../../payouts/stray-refund.js";
import { decidePayout, type PayoutDecision } from "../../../payouts/decide-payout.js";
import { retryPayoutWebhook } from "../../../payouts/payout-webhooks.js";
import type { PayoutActor } from "../../../payouts/payout-types.js";
import { readPayoutFloat } from "../../../payouts/read-float.js";
import { getAdminPayoutDetail } from "../../../payouts/admin-payout-detail.js";
import { listPayouts, toPayoutReply } from "../../../payouts/read-payouts.js";
import { claimUrl } from "../../../payouts/refund-claim.js";
import { reissueRefundClaim } from "../../../payouts/refund-claim-link.js";
import {
  adminCreateRefundSchema,
  adminCreateStrayRefundSchema,
  adminDecidePayoutSchema,
  adminGetPayoutSchema,
  adminListPayoutsSchema,
  adminPayoutFloatSchema,
  adminReissueClaimLinkSchema,
  adminRetryPayoutWebhookSchema,
} from "../../schemas/payouts.js";

/** The operator behind the admin session (request.operator, DESIGN.md 12). */
export function operatorActor(request: FastifyRequest): PayoutActor {
  const actor = auditActorOf(request);
  return actor.kind === "operator" ? actor : { kind: "operator", id: "owner", label: "owner" };
}

export const adminPayoutRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/payouts",
    { schema: adminListPayoutsSchema, config: { permission: "payouts.read" } },
    async (request) => listPayouts(request.ctx, request.query, request.query.merchant_id),
  );

  app.get(
    "/api/v1/admin/payouts/float",
    { schema: adminPayoutFloatSchema, config: { permission: "payouts.read" } },
    async (request) => readPayoutFloat(request.ctx),
  );

  app.get(
    "/api/v1/admin/payouts/:id",
    { schema: adminGetPayoutSchema, config: { permission: "payouts.read" } },
    async (request) => {
      const detail = await getAdminPayoutDetail(request.ctx, request.params.id, {
        actor: operatorActor(request),
        role: request.operator.role,
      });
      return {
        payout: toPayoutReply(request.ctx, detail.payout),
        ...detail.history,
        webhook: detail.webhook,
        claim_expires_at: detail.claimExpiresAt,
        actions: detail.actions,
      };
    },
  );

  app.post(
    "/api/v1/admin/payouts/:id/claim-link",
    { schema: adminReissueClaimLinkSchema, config: { permission: "refunds.create" } },
    async (request) => {
      const claim = await reissueRefundClaim(request.ctx, request.params.id, auditOriginOf(request));
      return { claim_url: claim.claimUrl, claim_expires_at: claim.claimExpiresAt.toISOString() };
    },
  );

  const decide = (decision: PayoutDecision, summary: string) =>
    app.post(
      `/api/v1/admin/payouts/:id/${decision}`,
      {
        schema: adminDecidePayoutSchema(summary),
        config: { permission: decision === "cancel" ? "payouts.cancel" : "payouts.approve" },
      },
      async (request) => {
        const row = await decidePayout(request.ctx, {
          id: request.params.id,
          decision,
          actor: operatorActor(request),
          reason: request.body?.reason,
          origin: auditOriginOf(request),
          // Approving and rejecting take a second factor from every approver (DESIGN.md 12).
          ...(decision === "cancel"
            ? {}
            : {
                stepUp: {
                  operator: request.operator,
                  totpCode: request.body?.totp_code,
                  passkey: request.body?.passkey,
                  origin: auditOriginOf(request),
                },
              }),
        });
        return toPayoutReply(request.ctx, row);
      },
    );
  decide("approve", "Approve a refund or payout (never by the operator who created it)");
  decide("reject", "Reject a refund or payout waiting for approval (its reservation is released)");
  decide("cancel", "Cancel a refund or payout before it is sent (its reservation is released)");

  app.post(
    "/api/v1/admin/payouts/:id/retry-webhook",
    { schema: adminRetryPayoutWebhookSchema, config: { permission: "payouts.retry_webhook" } },
    async (request, reply) => {
      await retryPayoutWebhook(request.ctx, request.params.id, auditOriginOf(request));
      return reply.status(202).send({ status: "scheduled" as const });
    },
  );

  app.post(
    "/api/v1/admin/orders/:id/refunds",
    { schema: adminCreateRefundSchema, config: { permission: "refunds.create" } },
    async (request, reply) => {
      const { payout, claimToken } = await createRefund(
        request.ctx,
        { orderId: request.params.id },
        operatorActor(request),
        request.body,
        auditOriginOf(request),
      );
      return reply
        .status(201)
        .send({ ...toPayoutReply(request.ctx, payout), claim_url: claimUrl(request.ctx, claimToken) });
    },
  );

  app.post(
    "/api/v1/admin/stray-transfers/:id/refunds",
    { schema: adminCreateStrayRefundSchema, config: { permission: "refunds.create" } },
    async (request, reply) => {
      const { payout, claimToken } = await createStrayRefund(
        request.ctx,
        request.params.id,
        operatorActor(request),
        request.body,
        auditOriginOf(request),
      );
      return reply
        .status(201)
        .send({ ...toPayoutReply(request.ctx, payout), claim_url: claimUrl(request.ctx, claimToken) });
    },
  );
};
