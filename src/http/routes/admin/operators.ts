/** /api/v1/admin/operators (owner): registered inside the admin session scope. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { createOperator } from "../../../operators/create-operator.js";
import { listOperators } from "../../../operators/list-operators.js";
import { toOperatorReply } from "../../../operators/operator-replies.js";
import { resetOperatorTotp } from "../../../operators/totp-enrolment.js";
import { updateOperator } from "../../../operators/update-operator.js";
import { auditOriginOf } from "../../audit-context.js";
import {
  createOperatorSchema,
  listOperatorsSchema,
  resetOperatorTotpSchema,
  updateOperatorSchema,
} from "../../schemas/admin-operators.js";

export const adminOperatorRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/operators",
    { schema: listOperatorsSchema, config: { permission: "operators.read" } },
    async (request) => ({ data: (await listOperators(request.ctx)).map(toOperatorReply) }),
  );

  app.post(
    "/api/v1/admin/operators",
    { schema: createOperatorSchema, config: { permission: "operators.manage" } },
    async (request, reply) => {
      const { operator, invitationUrl } = await createOperator(
        request.ctx,
        request.body,
        auditOriginOf(request),
      );
      return reply
        .status(201)
        .send({ operator: toOperatorReply(operator), invitation_url: invitationUrl ?? null });
    },
  );

  app.put(
    "/api/v1/admin/operators/:id",
    { schema: updateOperatorSchema, config: { permission: "operators.manage" } },
    async (request) => {
      const body = request.body;
      const row = await updateOperator(
        request.ctx,
        { id: request.params.id, name: body.name, role: body.role, isActive: body.is_active },
        auditOriginOf(request),
        { operator: request.operator, totpCode: body.totp_code },
      );
      return toOperatorReply(row);
    },
  );

  app.post(
    "/api/v1/admin/operators/:id/reset-2fa",
    { schema: resetOperatorTotpSchema, config: { permission: "operators.manage" } },
    async (request) => {
      await resetOperatorTotp(request.ctx, request.params.id, auditOriginOf(request), {
        operator: request.operator,
        totpCode: request.body?.totp_code,
      });
      return { ok: true as const };
    },
  );
};
