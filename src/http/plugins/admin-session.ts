/**
 * The admin session check (SPEC.md 5, DESIGN.md 12): every route registered in the same scope as this
 * plugin needs the admin_token cookie of a live session (request.operator), and the permission its
 * config names (src/admin/permissions.ts) for the operator's role: 403 ADMIN_FORBIDDEN otherwise. A
 * route that names no permission, or an unknown one, fails at registration, so the app cannot start
 * with an unguarded admin route. Bearer tokens are not supported; an Authorization header is ignored.
 * Registered with fastify-plugin so the hooks apply to the enclosing scope, not only to itself.
 */
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";
import type { Context } from "../../context.js";
import type { AdminOperator } from "../../admin/operator-types.js";
import { ENROLMENT_PERMISSIONS, isPermission, roleAllows, type Permission } from "../../admin/permissions.js";
import { authenticateSession } from "../../admin/sessions.js";
import { AppError } from "../../errors.js";

export const ADMIN_COOKIE = "admin_token";

declare module "fastify" {
  interface FastifyRequest {
    /** The operator of the request's session; set on every route behind admin-session. */
    operator: AdminOperator;
  }
  interface FastifyContextConfig {
    /** The permission an admin route needs (src/admin/permissions.ts); required in the admin scope. */
    permission?: Permission;
  }
}

async function adminSessionPlugin(app: FastifyInstance, _options: { ctx: Context }): Promise<void> {
  if (!app.hasRequestDecorator("operator")) app.decorateRequest("operator", null as unknown as AdminOperator);
  app.addHook("onRoute", (route) => {
    const permission = (route.config as { permission?: unknown } | undefined)?.permission;
    if (!isPermission(permission)) {
      throw new Error(
        `admin route ${String(route.method)} ${route.url} must declare config.permission from src/admin/permissions.ts`,
      );
    }
  });
  app.addHook("onRequest", async (request) => {
    const token = request.cookies[ADMIN_COOKIE];
    if (token === undefined || token === "") {
      throw new AppError("ADMIN_UNAUTHORIZED", "admin session required: log in first");
    }
    const operator = await authenticateSession(request.ctx, token);
    request.operator = operator;
    const permission = request.routeOptions.config.permission;
    if (!isPermission(permission) || !roleAllows(operator.role, permission)) {
      throw new AppError("ADMIN_FORBIDDEN", "your role does not allow this action");
    }
    if (
      request.ctx.config.adminRequire2fa &&
      !operator.totpEnabled &&
      !operator.hasPasskey &&
      !ENROLMENT_PERMISSIONS.has(permission)
    ) {
      throw new AppError(
        "TOTP_ENROLMENT_REQUIRED",
        "two-factor authentication is required on this deployment: add an authenticator app or a passkey on the Security page first",
      );
    }
  });
}

export const adminSession = fp(adminSessionPlugin, { name: "admin-session", fastify: "5.x" });
