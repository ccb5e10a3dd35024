import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { merchants } from "../db/schema.js";
import { AppError } from "../errors.js";
import { hashApiKey, looksLikeApiKey } from "./api-keys.js";
import type { MerchantRow } from "./types.js";

/**
 * Resolves a raw API key to its merchant by HMAC lookup. UNAUTHORIZED for a missing, malformed or
 * unknown key (one message for all, so the reply does not tell which); MERCHANT_INACTIVE for a
 * suspended merchant.
 */
export async function authenticateMerchant(ctx: Context, rawKey: string | undefined): Promise<MerchantRow> {
  if (rawKey === undefined || rawKey === "") {
    throw new AppError("UNAUTHORIZED", "missing X-API-Key header");
  }
  if (!looksLikeApiKey(rawKey)) throw invalidKey();
  const [merchant] = await ctx.db
    .select()
    .from(merchants)
    .where(eq(merchants.apiKeyHash, hashApiKey(ctx.config.apiKeyPepper, rawKey)));
  if (!merchant) throw invalidKey();
  if (!merchant.isActive) throw new AppError("MERCHANT_INACTIVE", "merchant is suspended");
  return merchant;
}

function invalidKey(): AppError {
  return new AppError("UNAUTHORIZED", "invalid API key");
}
