/** One's own passkeys and the step-up challenge (DESIGN.md 12). Inside the admin session scope. */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { authenticationOptions, type PasskeyRow } from "../../../admin/passkeys.js";
import {
  addPasskey,
  ownPasskeys,
  removePasskey,
  renamePasskey,
  startPasskeyRegistration,
} from "../../../operators/passkey-enrolment.js";
import { auditOriginOf } from "../../audit-context.js";
import {
  addPasskeySchema,
  listPasskeysSchema,
  passkeyRegistrationOptionsSchema,
  removePasskeySchema,
  renamePasskeySchema,
  stepUpChallengeSchema,
} from "../../schemas/admin-passkeys.js";

function toPasskeyReply(row: PasskeyRow) {
  return {
    id: row.id,
    name: row.name,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}

export const adminPasskeyRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get(
    "/api/v1/admin/me/passkeys",
    { schema: listPasskeysSchema, config: { permission: "account.self" } },
    async (request) => ({ data: (await ownPasskeys(request.ctx, request.operator)).map(toPasskeyReply) }),
  );

  app.get(
    "/api/v1/admin/me/passkeys/challenge",
    { schema: stepUpChallengeSchema, config: { permission: "account.self" } },
    async (request) => ({ ...(await authenticationOptions(request.ctx, "step_up", request.operator.id)) }),
  );

  app.post(
    "/api/v1/admin/me/passkeys/registration-options",
    { schema: passkeyRegistrationOptionsSchema, config: { permission: "account.self" } },
    async (request) => ({
      ...(await startPasskeyRegistration(
        request.ctx,
        request.operator,
        {
          currentPassword: request.body.current_password,
          totpCode: request.body.totp_code,
          passkey: request.body.passkey,
        },
        auditOriginOf(request),
      )),
    }),
  );

  app.post(
    "/api/v1/admin/me/passkeys",
    { schema: addPasskeySchema, config: { permission: "account.self" } },
    async (request, reply) => {
      const row = await addPasskey(
        request.ctx,
        request.operator,
        { name: request.body.name, response: request.body.response },
        auditOriginOf(request),
      );
      return reply.status(201).send(toPasskeyReply(row));
    },
  );

  app.patch(
    "/api/v1/admin/me/passkeys/:id",
    { schema: renamePasskeySchema, config: { permission: "account.self" } },
    async (request) =>
      toPasskeyReply(
        await renamePasskey(
          request.ctx,
          request.operator,
          request.params.id,
          request.body.name,
          auditOriginOf(request),
        ),
      ),
  );

  app.delete(
    "/api/v1/admin/me/passkeys/:id",
    { schema: removePasskeySchema, config: { permission: "account.self" } },
    async (request) => {
      const { sessionsRevoked } = await removePasskey(
        request.ctx,
        request.operator,
        request.params.id,
        { totpCode: request.body?.totp_code, passkey: request.body?.passkey },
        auditOriginOf(request),
      );
      return { ok: true as const, sessions_revoked: sessionsRevoked };
    },
  );
};
