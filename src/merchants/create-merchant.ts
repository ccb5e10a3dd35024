import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import { SYSTEM_ACTOR, type AuditOrigin } from "../audit/audit-types.js";
import { merchants } from "../db/schema.js";
import { newId } from "../ids.js";
import { generateApiKey, hashApiKey } from "./api-keys.js";
import { assertMerchantFields } from "./merchant-input.js";
import type { MerchantRow } from "./types.js";

export type { MerchantRow };

export interface CreateMerchantInput {
  name: string;
  webhookSecret: string;
}

export interface CreatedMerchant {
  merchant: MerchantRow;
  /** The raw API key: returned to the operator once and never stored. */
  apiKey: string;
}

/** Creates an active merchant with a fresh API key (stored only as its HMAC). */
export async function createMerchant(
  ctx: Context,
  input: CreateMerchantInput,
  origin: AuditOrigin = { actor: SYSTEM_ACTOR },
): Promise<CreatedMerchant> {
  assertMerchantFields(input);
  const { key, prefix } = generateApiKey(ctx.config.tronNetwork);
  const now = ctx.clock.now();
  const merchant = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(merchants)
      .values({
        id: newId(),
        name: input.name,
        apiKeyHash: hashApiKey(ctx.config.apiKeyPepper, key),
        apiKeyPrefix: prefix,
        webhookSecret: input.webhookSecret,
        apiKeyIssuedBy: origin.actor.kind === "operator" ? origin.actor.id : null,
        isActive: true,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error("merchant insert returned no row");
    await appendAudit(tx, {
      ...origin,
      action: "merchant.create",
      targetType: "merchant",
      targetId: row.id,
      after: {
        name: row.name,
        api_key_prefix: row.apiKeyPrefix,
        webhook_secret: true,
        is_active: row.isActive,
      },
      at: now,
    });
    return row;
  });
  ctx.log.info({ merchantId: merchant.id, apiKeyPrefix: prefix }, "merchant created");
  return { merchant, apiKey: key };
}
