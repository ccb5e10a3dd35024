/**
 * Everything under /api/v1/admin. Login, logout and accepting an invitation are public; every other
 * admin route is registered inside the session scope, so none can be mounted without the cookie
 * check, and none without a permission (`config: { permission }`, src/admin/permissions.ts).
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { adminSession } from "../../plugins/admin-session.js";
import { adminAccountRoutes } from "./account.js";
import { adminAlertRoutes } from "./alerts.js";
import { adminAuditRoutes } from "./audit.js";
import { adminAuthRoutes } from "./auth.js";
import { adminChainRoutes } from "./chain.js";
import { adminDepositAddressRoutes } from "./deposit-addresses.js";
import { adminMerchantRoutes } from "./merchants.js";
import { adminOperatorRoutes } from "./operators.js";
import { adminOrderRoutes } from "./orders.js";
import { adminPasskeyRoutes } from "./passkeys.js";
import { adminResolutionRoutes } from "./resolutions.js";
import { adminPayoutRoutes } from "./payouts.js";
import { adminStatsRoutes } from "./stats.js";
import { adminWalletRoutes } from "./wallet.js";
import { adminWebhookRoutes } from "./webhooks.js";

/**
 * The scope behind the admin_token cookie. Add admin route modules HERE (one register line each):
 * the admin-session hook covers every route registered in this function and nothing outside it.
 */
export const adminSessionScope: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  await app.register(adminSession, { ctx });
  await app.register(adminMerchantRoutes, { ctx });
  await app.register(adminWebhookRoutes, { ctx });
  await app.register(adminOrderRoutes, { ctx });
  await app.register(adminStatsRoutes, { ctx });
  await app.register(adminWalletRoutes, { ctx });
  await app.register(adminAlertRoutes, { ctx });
  await app.register(adminChainRoutes, { ctx });
  await app.register(adminOperatorRoutes, { ctx });
  await app.register(adminAccountRoutes, { ctx });
  await app.register(adminPasskeyRoutes, { ctx });
  await app.register(adminAuditRoutes, { ctx });
  await app.register(adminPayoutRoutes, { ctx });
  await app.register(adminResolutionRoutes, { ctx });
  await app.register(adminDepositAddressRoutes, { ctx });
  // orders, stats, incidents, wallet, webhooks: `await app.register(adminXxxRoutes, { ctx });`
};

export const adminRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  await app.register(adminAuthRoutes, { ctx });
  await app.register(adminSessionScope, { ctx });
};
