/**
 * The merchant API (X-API-Key). Every route registered here sits behind the API-key plugin; every
 * route but GET /merchant/me also behind the per-key rate limit.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { merchantAuth } from "../../plugins/merchant-auth.js";
import { merchantRateLimit } from "../../plugins/merchant-rate-limit.js";
import { RateLimiter } from "../../rate-limiter.js";
import { merchantApiKeyRoutes } from "./api-key.js";
import { merchantMeRoutes } from "./me.js";
import { depositAddressRoutes } from "./deposit-addresses.js";
import { paymentRoutes } from "./payments.js";
import { merchantPayoutRoutes } from "./payouts.js";

/**
 * The rate-limited scope. Add merchant route modules HERE (one register line each): the limit's hook
 * covers every route registered in this function and nothing outside it, and its one limiter gives a
 * key one budget across payments, deposit addresses and payouts.
 */
const rateLimitedScope: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  const limiter = new RateLimiter(ctx.config.merchantRateLimitPerMinute, ctx.clock);
  await app.register(merchantRateLimit, { limiter });
  await app.register(paymentRoutes, { ctx });
  await app.register(depositAddressRoutes, { ctx });
  await app.register(merchantPayoutRoutes, { ctx });
  await app.register(merchantApiKeyRoutes, { ctx });
};

export const merchantRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app, { ctx }) => {
  await app.register(merchantAuth, { ctx });
  await app.register(merchantMeRoutes, { ctx });
  await app.register(rateLimitedScope, { ctx });
};
