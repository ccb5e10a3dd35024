import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import { SYSTEM_ACTOR, type AuditOrigin } from "../audit/audit-types.js";
import { merchants } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { requireStepUp, type StepUp } from "../admin/step-up.js";
import { HOUSE_MERCHANT_ID } from "../payouts/house-account.js";
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
 * Enabling the house account (which lets a key act as it) is a step-up action (DESIGN.md 12).
 */
export async function updateMerchant(
  ctx: Context,
  input: UpdateMerchantInput,
  origin: AuditOrigin = { actor: SYSTEM_ACTOR },
  stepUp?: StepUp,
): Promise<MerchantRow> {
  if (input.id === HOUSE_MERCHANT_ID && input.isActive === true) {
    if (stepUp === undefined)
      throw new AppError("INVALID_STATE", "enabling the house account needs an operator's step-up");
    await requireStepUp(ctx, stepUp);
  }
  const patch: Partial<typeof merchants.$inferInsert> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.isActive !== undefined) patch.isActive = input.isActive;
  if (input.webhookSecret !== undefined) patch.webhookSecret = input.webhookSecret;
  if (Object.keys(patch).length === 0) {
    throw new AppError("EMPTY_UPDATE", "send at least one of name, is_active, webhook_secret");
  }
  assertMerchantFields(input);
  if (!isUuid(input.id)) throw merchantNotFound();
  const now = ctx.clock.now();
  const merchant = await ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(merchants).where(eq(merchants.id, input.id)).for("update");
    if (!before) throw merchantNotFound();
    const [row] = await tx
      .update(merchants)
      .set({ ...patch, updatedAt: now })
      .where(eq(merchants.id, input.id))
      .returning();
    if (!row) throw merchantNotFound();
    await appendAudit(tx, {
      ...origin,
      action: "merchant.update",
      targetType: "merchant",
      targetId: row.id,
      // webhook_secret is redacted by name; name and is_active are shown.
      before: pick(before, patch),
      after: pick(row, patch),
      at: now,
    });
    return row;
  });
  // Field names only: the new values may be secret.
  ctx.log.info({ merchantId: merchant.id, fields: Object.keys(patch) }, "merchant updated");
  return merchant;
}

/** The changed fields of a merchant row, under their API names. */
function pick(row: MerchantRow, patch: Partial<typeof merchants.$inferInsert>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (patch.name !== undefined) out.name = row.name;
  if (patch.isActive !== undefined) out.is_active = row.isActive;
  if (patch.webhookSecret !== undefined) out.webhook_secret = row.webhookSecret;
  return out;
}
