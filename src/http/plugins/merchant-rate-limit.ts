/**
 * The merchant API's per-key rate limit (DESIGN.md 3): every request of the scope that registers this
 * plugin, valid or not, takes a token from its merchant's bucket before any handler or schema runs;
 * an empty bucket answers 429 RATE_LIMITED with Retry-After. Registered with fastify-plugin so the
 * hook covers the enclosing scope, after merchant-auth (registered in a parent scope) has set
 * request.merchant.
 */
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";
import { AppError } from "../../errors.js";
import type { RateLimiter } from "../rate-limiter.js";
import { requireMerchant } from "./merchant-auth.js";

async function merchantRateLimitPlugin(
  app: FastifyInstance,
  { limiter }: { limiter: RateLimiter },
): Promise<void> {
  app.addHook("onRequest", async (request) => {
    const decision = limiter.take(requireMerchant(request).id);
    if (!decision.allowed) {
      throw new AppError("RATE_LIMITED", "rate limit exceeded: slow down and retry later", {
        retryAfter: decision.retryAfterSeconds,
      });
    }
  });
}

export const merchantRateLimit = fp(merchantRateLimitPlugin, { name: "merchant-rate-limit", fastify: "5.x" });
