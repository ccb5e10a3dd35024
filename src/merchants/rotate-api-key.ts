import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { merchants } from "../db/schema.js";
import { isUuid } from "../ids.js";
import { generateApiKey, hashApiKey } from "./api-keys.js";
import { merchantNotFound } from "./find-merchant.js";
import type { MerchantRow } from "./types.js";

export interface RotatedApiKey {
  merchant: MerchantRow;
  /** The new raw key, shown once. */
  apiKey: string;
}

/**
 * Replaces the merchant's API key. The old key stops working with this UPDATE: authentication looks
 * keys up by hash on every request, so nothing caches the old one.
 */
export async function rotateApiKey(ctx: Context, input: { id: string }): Promise<RotatedApiKey> {
  if (!isUuid(input.id)) throw merchantNotFound();
  const { key, prefix } = generateApiKey(ctx.config.tronNetwork);
  const [merchant] = await ctx.db
    .update(merchants)
    .set({
      apiKeyHash: hashApiKey(ctx.config.apiKeyPepper, key),
      apiKeyPrefix: prefix,
      updatedAt: ctx.clock.now(),
    })
    .where(eq(merchants.id, input.id))
    .returning();
  if (!merchant) throw merchantNotFound();
  ctx.log.info({ merchantId: merchant.id, apiKeyPrefix: prefix }, "merchant api key rotated");
  return { merchant, apiKey: key };
}
