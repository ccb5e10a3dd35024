/**
 * POST /deposit-addresses/:id/disable and /enable. Disabling does not stop the chain: a deposit to a
 * disabled address is still recorded, credited and reported (with address_status "disabled") and
 * raises an incident (DESIGN.md 15); it tells the merchant's customer-facing side to stop showing
 * the address. Both are idempotent: asking for the status the address has changes nothing.
 */
import { and, eq, type SQL } from "drizzle-orm";
import { appendAudit } from "../audit/append-audit.js";
import { SYSTEM_ACTOR, type AuditOrigin } from "../audit/audit-types.js";
import type { Context } from "../context.js";
import { depositAddresses, type DepositAddressStatus } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { getDepositAddress, type DepositAddressDetail } from "./get-deposit-address.js";

export async function setDepositAddressStatus(
  ctx: Context,
  merchantId: string | undefined,
  id: string,
  status: DepositAddressStatus,
  /** Who asked (the audit row's actor); the system when a tool calls it. */
  origin: AuditOrigin = { actor: SYSTEM_ACTOR },
): Promise<DepositAddressDetail & { merchant_id: string }> {
  if (!isUuid(id)) throw new AppError("NOT_FOUND", "deposit address not found");
  const scope: SQL[] = [eq(depositAddresses.id, id)];
  if (merchantId !== undefined) scope.push(eq(depositAddresses.merchantId, merchantId));
  const changed = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(depositAddresses)
      .where(and(...scope))
      .for("update");
    if (!row) throw new AppError("NOT_FOUND", "deposit address not found");
    if (row.status === status) return false;
    const now = ctx.clock.now();
    await tx
      .update(depositAddresses)
      .set({ status, disabledAt: status === "disabled" ? now : null, updatedAt: now })
      .where(eq(depositAddresses.id, id));
    await appendAudit(tx, {
      ...origin,
      action: status === "disabled" ? "deposit_address.disable" : "deposit_address.enable",
      targetType: "deposit_address",
      targetId: id,
      before: { status: row.status },
      after: { status },
      at: now,
    });
    return true;
  });
  if (changed) ctx.log.info({ depositAddressId: id, status }, "deposit address status changed");
  return getDepositAddress(ctx, merchantId, id);
}
