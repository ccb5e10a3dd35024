/**
 * POST /api/v1/merchant/rotate-api-key: the merchant replaces its own API key (DESIGN.md 14).
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { rotateOwnApiKey } from "../../../merchants/rotate-api-key.js";
import { auditOriginOf } from "../../audit-context.js";
import { requireMerchant } from "../../plugins/merchant-auth.js";
import { rotateOwnApiKeySchema } from "../../schemas/merchant-me.js";

export const merchantApiKeyRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.post("/api/v1/merchant/rotate-api-key", { schema: rotateOwnApiKeySchema }, async (request) => {
    const merchant = requireMerchant(request);
    const rotated = await rotateOwnApiKey(request.ctx, merchant.id, auditOriginOf(request));
    return { api_key: rotated.apiKey, api_key_prefix: rotated.merchant.apiKeyPrefix };
  });
};
