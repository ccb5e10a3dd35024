import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import { requireStepUp, type StepUp } from "../admin/step-up.js";
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
 * keys up by hash on every request, so nothing caches the old one. A step-up action (DESIGN.md 12).
 */
export async function rotateApiKey(
  ctx: Context,
  input: { id: string },
  origin: AuditOrigin,
  stepUp: StepUp,
): Promise<RotatedApiKey> {
  await requireStepUp(ctx, stepUp);
  if (!isUuid(input.id)) throw merchantNotFound();
  const { key, prefix } = generateApiKey(ctx.config.tronNetwork);
  const now = ctx.clock.now();
  const merchant = await ctx.db.transaction(async (tx) => {
    const [before] = await tx
      .select({ prefix: merchants.apiKeyPrefix })
      .from(merchants)
      .where(eq(merchants.id, input.id))
      .for("update");
    const [row] = await tx
      .update(merchants)
      .set({ apiKeyHash: hashApiKey(ctx.config.apiKeyPepper, key), apiKeyPrefix: prefix, updatedAt: now })
      .where(eq(merchants.id, input.id))
      .returning();
    if (!row || !before) throw merchantNotFound();
    await appendAudit(tx, {
      ...origin,
      action: "merchant.rotate_key",
      targetType: "merchant",
      targetId: row.id,
      before: { api_key_prefix: before.prefix },
      after: { api_key_prefix: row.apiKeyPrefix },
      at: now,
    });
    return row;
  });
  ctx.log.info({ merchantId: merchant.id, apiKeyPrefix: prefix }, "merchant api key rotated");
  return { merchant, apiKey: key };
}
