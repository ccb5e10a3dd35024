/**
 * A fresh claim link for a refund that waits for its payer's address (DESIGN.md 14). Only the
 * token's sha256 is stored, so the link first given cannot be shown again: an operator re-issues
 * it instead. The new token replaces the old one (the old link stops working at once) and the link
 * is valid for CLAIM_TTL_MS from now, so an expired link is renewed the same way. The reply is the
 * only place the new link appears; the audit row records who re-issued it and the new expiry,
 * never the token.
 */
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { appendAudit, type AuditOrigin } from "../audit/append-audit.js";
import type { Context } from "../context.js";
import { payouts } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { claimTokenHash } from "./create-payout.js";
import { CLAIM_TTL_MS } from "./payout-types.js";
import { claimUrl } from "./refund-claim.js";

export interface ReissuedClaim {
  /** the payer's page, PUBLIC_BASE_URL/refund/<token>; shown once */
  claimUrl: string;
  claimExpiresAt: Date;
}

export async function reissueRefundClaim(
  ctx: Context,
  id: string,
  origin: AuditOrigin,
): Promise<ReissuedClaim> {
  if (!isUuid(id)) throw new AppError("NOT_FOUND", "refund not found");
  const token = randomBytes(32).toString("base64url");
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.select().from(payouts).where(eq(payouts.id, id)).for("update");
    if (!row || row.kind !== "refund") throw new AppError("NOT_FOUND", "refund not found");
    if (row.status !== "awaiting_address") {
      throw new AppError(
        "INVALID_STATE",
        `only a refund waiting for the payer's address has a claim link; this one is ${row.status}`,
      );
    }
    const now = ctx.clock.now();
    const claimExpiresAt = new Date(now.getTime() + CLAIM_TTL_MS);
    await tx
      .update(payouts)
      .set({ claimTokenHash: claimTokenHash(token), claimExpiresAt, updatedAt: now })
      .where(and(eq(payouts.id, id), eq(payouts.status, "awaiting_address")));
    await appendAudit(tx, {
      actor: origin.actor,
      action: "refund.claim_link_reissue",
      targetType: "refund",
      targetId: row.id,
      before: { claim_expires_at: row.claimExpiresAt?.toISOString() ?? null },
      after: { claim_expires_at: claimExpiresAt.toISOString() },
      ...(origin.ip === undefined ? {} : { ip: origin.ip }),
      ...(origin.userAgent === undefined ? {} : { userAgent: origin.userAgent }),
      at: now,
    });
    return { claimUrl: claimUrl(ctx, token)!, claimExpiresAt };
  });
}
