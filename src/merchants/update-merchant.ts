import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { merchants } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { merchantNotFound } from "./find-merchant.js";
import { assertMerchantFields } from "./merchant-input.js";
import type { MerchantRow } from "./types.js";

export interface UpdateMerchantInput {
  id: string;
  name?: string | undefined;
  isActive?: boolean | undefined;
  webhookSecret?: string | undefined;
}

/**
 * Changes any of name, is_active and webhook_secret. Suspending a merchant takes effect on its next
 * request; its existing orders keep processing. A new webhook_secret signs every later attempt.
 */
export async function updateMerchant(ctx: Context, input: UpdateMerchantInput): Promise<MerchantRow> {
  const patch: Partial<typeof merchants.$inferInsert> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.isActive !== undefined) patch.isActive = input.isActive;
  if (input.webhookSecret !== undefined) patch.webhookSecret = input.webhookSecret;
  if (Object.keys(patch).length === 0) {
    throw new AppError("EMPTY_UPDATE", "send at least one of name, is_active, webhook_secret");
  }
  assertMerchantFields(input);
  if (!isUuid(input.id)) throw merchantNotFound();
  const [merchant] = await ctx.db
    .update(merchants)
    .set({ ...patch, updatedAt: ctx.clock.now() })
    .where(eq(merchants.id, input.id))
    .returning();
  if (!merchant) throw merchantNotFound();
  // Field names only: the new values may be secret.
  ctx.log.info({ merchantId: merchant.id, fields: Object.keys(patch) }, "merchant updated");
  return merchant;
}
