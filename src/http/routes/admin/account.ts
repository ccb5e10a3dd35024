/**
 * One's own account (every role): who am I, password, TOTP enrolment, recovery codes, sessions.
 * Registered inside the admin session scope.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { BUILTIN_OWNER_ID } from "../../../admin/operator-types.js";
import { permissionsOf } from "../../../admin/permissions.js";
import { secondFactorLockedUntil } from "../../../admin/factor-lockout.js";
import { countUnusedRecoveryCodes } from "../../../admin/recovery-codes.js";
import { ownPasskeys } from "../../../operators/passkey-enrolment.js";
import { listVisibleSessions } from "../../../admin/sessions.js";
import { changePassword } from "../../../operators/change-password.js";
import { findOperator } from "../../../operators/list-operators.js";
import { revokeOperatorSession } from "../../../operators/revoke-operator-session.js";
import {
  confirmTotpEnrolment,
  disableTotp,
  type Reauthentication,
  regenerateRecoveryCodes,
  startTotpEnrolment,
} from "../../../operators/totp-enrolment.js";
import { auditOriginOf } from "../../audit-context.js";
import {
  changePasswordSchema,
  getMeSchema,
  listSessionsSchema,
  recoveryCodesSchema,
  revokeSessionSchema,
  totpConfirmSchema,
  totpDisableSchema,
  totpSetupSchema,
} from "../../schemas/admin-operators.js";

function reauthOf(body: {
  current_password: string;
  totp_code?: string | undefined;
  passkey?: unknown;
}): Reauthentication {
  return { currentPassword: body.current_password, totpCode: body.totp_code, passkey: body.passkey };
}

export const adminAccountRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/me",
    { schema: getMeSchema, config: { permission: "account.self" } },
    async (request) => {
      const operator = request.operator;
      const row = await findOperator(request.ctx, operator.id);
      return {
        id: operator.id,
        email: row?.email ?? null,
        name: operator.name,
        role: operator.role,
        is_builtin: operator.id === BUILTIN_OWNER_ID,
        session_id: operator.sessionId,
        totp_enabled: operator.totpEnabled,
        passkeys: (await ownPasskeys(request.ctx, operator)).length,
        second_factor_locked_until:
          (await secondFactorLockedUntil(request.ctx, operator.id))?.toISOString() ?? null,
        totp_required: request.ctx.config.adminRequire2fa && !operator.totpEnabled && !operator.hasPasskey,
        recovery_codes_left: operator.totpEnabled
          ? await countUnusedRecoveryCodes(request.ctx, operator.id)
          : 0,
        permissions: permissionsOf(operator.role),
      };
    },
  );

  app.post(
    "/api/v1/admin/me/password",
    { schema: changePasswordSchema, config: { permission: "account.self" } },
    async (request) => {
      const { sessionsRevoked } = await changePassword(
        request.ctx,
        request.operator,
        { currentPassword: request.body.current_password, newPassword: request.body.new_password },
        auditOriginOf(request),
      );
      return { ok: true as const, sessions_revoked: sessionsRevoked };
    },
  );

  app.post(
    "/api/v1/admin/me/totp/setup",
    { schema: totpSetupSchema, config: { permission: "account.self" } },
    async (request) => {
      const { secret, otpauthUrl } = await startTotpEnrolment(
        request.ctx,
        request.operator,
        reauthOf(request.body),
        auditOriginOf(request),
      );
      return { secret, otpauth_url: otpauthUrl };
    },
  );

  app.post(
    "/api/v1/admin/me/totp/confirm",
    { schema: totpConfirmSchema, config: { permission: "account.self" } },
    async (request) => {
      const { recoveryCodes } = await confirmTotpEnrolment(
        request.ctx,
        request.operator,
        request.body.totp_code,
        auditOriginOf(request),
      );
      return { recovery_codes: recoveryCodes };
    },
  );

  app.post(
    "/api/v1/admin/me/totp/disable",
    { schema: totpDisableSchema, config: { permission: "account.self" } },
    async (request) => {
      const { sessionsRevoked } = await disableTotp(
        request.ctx,
        request.operator,
        reauthOf(request.body),
        auditOriginOf(request),
      );
      return { ok: true as const, sessions_revoked: sessionsRevoked };
    },
  );

  app.post(
    "/api/v1/admin/me/recovery-codes",
    { schema: recoveryCodesSchema, config: { permission: "account.self" } },
    async (request) => {
      const { recoveryCodes } = await regenerateRecoveryCodes(
        request.ctx,
        request.operator,
        reauthOf(request.body),
        auditOriginOf(request),
      );
      return { recovery_codes: recoveryCodes };
    },
  );

  app.get(
    "/api/v1/admin/sessions",
    { schema: listSessionsSchema, config: { permission: "sessions.own" } },
    async (request) => {
      const operator = request.operator;
      const rows = await listVisibleSessions(request.ctx, operator, {
        all: request.query.all === "true",
        operatorId: request.query.operator_id,
      });
      return {
        data: rows.map((row) => ({
          id: row.id,
          operator_id: row.operatorId,
          current: row.id === operator.sessionId,
          created_at: row.createdAt.toISOString(),
          expires_at: row.expiresAt.toISOString(),
          last_seen_at: row.lastSeenAt.toISOString(),
          revoked_at: row.revokedAt?.toISOString() ?? null,
          revoked_reason: row.revokedReason,
          ip: row.ip,
          user_agent: row.userAgent,
        })),
      };
    },
  );

  app.delete(
    "/api/v1/admin/sessions/:id",
    { schema: revokeSessionSchema, config: { permission: "sessions.own" } },
    async (request) => {
      await revokeOperatorSession(request.ctx, request.operator, request.params.id, auditOriginOf(request));
      return { ok: true as const };
    },
  );
};
