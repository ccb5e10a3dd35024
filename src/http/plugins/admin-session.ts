/**
 * The admin session check (SPEC.md 5): every route registered in the same scope as this plugin needs
 * the admin_token cookie. Bearer tokens are not supported; an Authorization header is ignored.
 * Registered with fastify-plugin so the hook applies to the enclosing scope, not only to itself.
 */
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";
import type { Context } from "../../context.js";
import { verifyAdminToken } from "../../admin/admin-token.js";
import { AppError } from "../../errors.js";

export const ADMIN_COOKIE = "admin_token";

async function adminSessionPlugin(app: FastifyInstance, _options: { ctx: Context }): Promise<void> {
  app.addHook("onRequest", async (request) => {
    const token = request.cookies[ADMIN_COOKIE];
    if (token === undefined || token === "") {
      throw new AppError("ADMIN_UNAUTHORIZED", "admin session required: log in first");
    }
    await verifyAdminToken(request.ctx, token);
  });
}

export const adminSession = fp(adminSessionPlugin, { name: "admin-session", fastify: "5.x" });
