/** /api/v1/admin/operators (owner): registered inside the admin session scope. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { createOperator } from "../../../operators/create-operator.js";
import { listOperators, readFactorStates } from "../../../operators/list-operators.js";
import { unlockSecondFactor } from "../../../operators/unlock-second-factor.js";
import { toOperatorReply } from "../../../operators/operator-replies.js";
import { resetOperatorTotp } from "../../../operators/totp-enrolment.js";
import { updateOperator } from "../../../operators/update-operator.js";
import { auditOriginOf } from "../../audit-context.js";
import {
  createOperatorSchema,
  listOperatorsSchema,
  resetOperatorTotpSchema,
  unlockSecondFactorSchema,
  updateOperatorSchema,
} from "../../schemas/admin-operators.js";

export const adminOperatorRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/operators",
    { schema: listOperatorsSchema, config: { permission: "operators.read" } },
    async (request) => {
      const rows = await listOperators(request.ctx);
      const states = await readFactorStates(
        request.ctx,
        rows.map((row) => row.id),
      );
      return { data: rows.map((row) => toOperatorReply(row, states.get(row.id))) };
    },
  );

  app.post(
    "/api/v1/admin/operators",
    { schema: createOperatorSchema, config: { permission: "operators.manage" } },
    async (request, reply) => {
      const { totp_code: totpCode, passkey, ...input } = request.body;
      const origin = auditOriginOf(request);
      const { operator, invitationUrl } = await createOperator(request.ctx, input, origin, {
        operator: request.operator,
        totpCode,
        passkey,
        origin,
      });
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
        {
          operator: request.operator,
          totpCode: body.totp_code,
          passkey: body.passkey,
          origin: auditOriginOf(request),
        },
      );
      const states = await readFactorStates(request.ctx, [row.id]);
      return toOperatorReply(row, states.get(row.id));
    },
  );

  app.post(
    "/api/v1/admin/operators/:id/reset-2fa",
    { schema: resetOperatorTotpSchema, config: { permission: "operators.manage" } },
    async (request) => {
      await resetOperatorTotp(request.ctx, request.params.id, {
        operator: request.operator,
        currentPassword: request.body.current_password,
        totpCode: request.body.totp_code,
        passkey: request.body.passkey,
        origin: auditOriginOf(request),
      });
      return { ok: true as const };
    },
  );

  app.post(
    "/api/v1/admin/operators/:id/unlock-second-factor",
    { schema: unlockSecondFactorSchema, config: { permission: "operators.manage" } },
    async (request) => {
      const wasLocked = await unlockSecondFactor(request.ctx, request.params.id, {
        operator: request.operator,
        totpCode: request.body?.totp_code,
        passkey: request.body?.passkey,
        origin: auditOriginOf(request),
      });
      return { ok: true as const, was_locked: wasLocked };
    },
  );
};
