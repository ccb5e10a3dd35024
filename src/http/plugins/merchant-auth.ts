/**
 * Merchant API-key authentication (SPEC.md 5): resolves X-API-Key to a merchant by hash lookup before
 * any route of the scope runs, and exposes it as request.merchant. Registered with fastify-plugin so
 * the hook covers every route of the scope that registers it.
 */
import fp from "fastify-plugin";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Context } from "../../context.js";
import { AppError } from "../../errors.js";
import { authenticateMerchant, authenticateMerchantCached } from "../../merchants/authenticate-merchant.js";
import type { MerchantRow } from "../../merchants/types.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The authenticated merchant; set on every route behind merchant-auth, null elsewhere. */
    merchant: MerchantRow | null;
    /** HMAC of the request's API key, set on routes that re-verify it in their own statement. */
    apiKeyHash: string | null;
  }
  interface FastifyContextConfig {
    /**
     * The route's statement re-checks the key hash and the active flag in the database itself
     * (see authenticateMerchantCached), so the lookup may come from the per-process cache.
     */
    verifiesApiKeyInStatement?: boolean;
  }
}

async function merchantAuthPlugin(app: FastifyInstance, _options: { ctx: Context }): Promise<void> {
  if (!app.hasRequestDecorator("merchant")) app.decorateRequest("merchant", null);
  if (!app.hasRequestDecorator("apiKeyHash")) app.decorateRequest("apiKeyHash", null);
  app.addHook("onRequest", async (request) => {
    const header = request.headers["x-api-key"];
    const rawKey = Array.isArray(header) ? undefined : header?.trim();
    if (request.routeOptions.config.verifiesApiKeyInStatement === true) {
      const { merchant, keyHash } = await authenticateMerchantCached(request.ctx, rawKey);
      request.merchant = merchant;
      request.apiKeyHash = keyHash;
    } else {
      request.merchant = await authenticateMerchant(request.ctx, rawKey);
    }
  });
}

export const merchantAuth = fp(merchantAuthPlugin, { name: "merchant-auth", fastify: "5.x" });

/** The merchant of an authenticated request; a route outside merchant-auth gets UNAUTHORIZED. */
export function requireMerchant(request: FastifyRequest): MerchantRow {
  if (!request.merchant) throw new AppError("UNAUTHORIZED", "missing X-API-Key header");
  return request.merchant;
}
