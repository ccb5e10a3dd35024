/**
 * GET /api/v1/merchant/me: lets a merchant check its key and see which merchant it belongs to, with
 * its ledger balance (DESIGN.md 14): `balance` in USDT as SPEC says, `balances` per currency (16).
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { getMerchantAccount } from "../../../merchants/get-merchant-account.js";
import { requireMerchant } from "../../plugins/merchant-auth.js";
import { formatBalance, formatBalances } from "../../schemas/merchant-fields.js";
import { merchantMeSchema } from "../../schemas/merchant-me.js";

export const merchantMeRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.get("/api/v1/merchant/me", { schema: merchantMeSchema }, async (request) => {
    const { merchant, balance, balances } = await getMerchantAccount(request.ctx, requireMerchant(request));
    return {
      id: merchant.id,
      name: merchant.name,
      api_key_prefix: merchant.apiKeyPrefix,
      is_active: merchant.isActive,
      balance: formatBalance(balance),
      balances: formatBalances(balances),
    };
  });
};
