/**
 * The merchant API (X-API-Key). Every route registered here sits behind the API-key plugin.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { merchantAuth } from "../../plugins/merchant-auth.js";
import { merchantMeRoutes } from "./me.js";
import { RateLimiter } from "../../rate-limiter.js";
import { depositAddressRoutes } from "./deposit-addresses.js";
import { paymentRoutes } from "./payments.js";
import { merchantPayoutRoutes } from "./payouts.js";

export const merchantRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  await app.register(merchantAuth, { ctx });
  await app.register(merchantMeRoutes, { ctx });
  // One limit per key across the merchant API (payments and deposit addresses alike).
  const limiter = new RateLimiter(ctx.config.merchantRateLimitPerMinute, ctx.clock);
  await app.register(paymentRoutes, { ctx, limiter });
  await app.register(depositAddressRoutes, { ctx, limiter });
  await app.register(merchantPayoutRoutes, { ctx, limiter });
};
