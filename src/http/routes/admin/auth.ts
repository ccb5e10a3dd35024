/**
 * POST /api/v1/admin/auth/login and /logout (SPEC.md 4.3, DESIGN.md 12). Both are outside the session
 * scope: login creates the session, and logout must work even with an expired or broken cookie.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { CookieSerializeOptions } from "@fastify/cookie";
import type { Context } from "../../../context.js";
import { loginAdmin } from "../../../admin/login-admin.js";
import { logoutAdmin } from "../../../admin/logout-admin.js";
import { requestMeta } from "../../audit-context.js";
import { ADMIN_COOKIE } from "../../plugins/admin-session.js";
import { acceptInvitation } from "../../../operators/accept-invitation.js";
import { loginSchema, logoutSchema } from "../../schemas/admin-auth.js";
import { passkeyOptionsSchema } from "../../schemas/admin-passkeys.js";
import { authenticationOptions } from "../../../admin/passkeys.js";
import { acceptInvitationSchema } from "../../schemas/admin-operators.js";

export function adminCookieOptions(ctx: Context): CookieSerializeOptions {
  return { httpOnly: true, sameSite: "strict", secure: ctx.config.isProduction, path: "/" };
}

export const adminAuthRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  const cookieOptions = adminCookieOptions(ctx);

  app.post("/api/v1/admin/auth/login", { schema: loginSchema }, async (request, reply) => {
    const { token, maxAgeSeconds } = await loginAdmin(request.ctx, {
      password: request.body.password,
      email: request.body.email,
      totpCode: request.body.totp_code,
      passkey: request.body.passkey,
      clientIp: request.ip,
      userAgent: requestMeta(request).userAgent,
    });
    reply.setCookie(ADMIN_COOKIE, token, { ...cookieOptions, maxAge: maxAgeSeconds });
    return { ok: true as const };
  });

  // Stateless (a MAC'd challenge), so an anonymous caller writes nothing.
  app.post("/api/v1/admin/auth/passkey-options", { schema: passkeyOptionsSchema }, async (request) => ({
    ...(await authenticationOptions(request.ctx, "login", "")),
  }));

  app.post("/api/v1/admin/auth/logout", { schema: logoutSchema }, async (request, reply) => {
    await logoutAdmin(request.ctx, { token: request.cookies[ADMIN_COOKIE], ...requestMeta(request) });
    reply.clearCookie(ADMIN_COOKIE, cookieOptions);
    return { ok: true as const };
  });

  app.post("/api/v1/admin/auth/accept-invitation", { schema: acceptInvitationSchema }, async (request) => {
    const { email } = await acceptInvitation(request.ctx, {
      token: request.body.token,
      password: request.body.password,
      ...requestMeta(request),
    });
    return { ok: true as const, email };
  });
};
