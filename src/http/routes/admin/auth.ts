/**
 * POST /api/v1/admin/auth/login and /logout (SPEC.md 4.3). Both are outside the session scope: login
 * creates the session, and logout must work even with an expired or broken cookie.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { CookieSerializeOptions } from "@fastify/cookie";
import type { Context } from "../../../context.js";
import { loginAdmin } from "../../../admin/login-admin.js";
import { ADMIN_COOKIE } from "../../plugins/admin-session.js";
import { loginSchema, logoutSchema } from "../../schemas/admin-auth.js";

export const adminAuthRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  const cookieOptions: CookieSerializeOptions = {
    httpOnly: true,
    sameSite: "strict",
    secure: ctx.config.isProduction,
    path: "/",
  };

  app.post("/api/v1/admin/auth/login", { schema: loginSchema }, async (request, reply) => {
    const { token, maxAgeSeconds } = await loginAdmin(request.ctx, {
      password: request.body.password,
      clientIp: request.ip,
    });
    reply.setCookie(ADMIN_COOKIE, token, { ...cookieOptions, maxAge: maxAgeSeconds });
    return { ok: true as const };
  });

  app.post("/api/v1/admin/auth/logout", { schema: logoutSchema }, async (_request, reply) => {
    reply.clearCookie(ADMIN_COOKIE, cookieOptions);
    return { ok: true as const };
  });
};
