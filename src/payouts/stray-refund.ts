/**
 * Refunding a stray transfer (DESIGN.md 13 and 14): POST /admin/stray-transfers/:id/refunds. A
 * stray belongs to no merchant, so its refunds belong to the house account (house-account.ts).
 * In one transaction, with the stray row locked:
 *  - the stray must be confirmed and not attached or dismissed (409 INVALID_STATE);
 *  - the amount (default: what is left) never exceeds the stray's amount less its refunds that are
 *    not rejected, cancelled or failed (409 REFUND_EXCEEDS_RECEIVED);
 *  - the first refund marks the stray resolved `refunded` and credits the house account with the
 *    whole stray (ledger `stray_received`: received -> available); a later refund of the same
 *    stray (after one was rejected, or for the rest) only reserves from what that credit left;
 *  - the refund is created like any (pending approval unless auto-approved, four eyes, TOTP on
 *    approval), its reservation posted, and the caller's audit row written.
 * A stray resolved `refunded` stays so even when all its refunds end rejected: the money is on the
 * house account's books, and another refund of the stray is the way to pay it back.
 */
import { eq, sql } from "drizzle-orm";
import type { AuditOrigin } from "../audit/append-audit.js";
import type { Context } from "../context.js";
import { strayTransfers } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { creditMerchant } from "../ledger/post-ledger.js";
import { formatAmount } from "../money.js";
import { actorRecord } from "../orders/resolution-actor.js";
import {
  amountOf,
  chainColumns,
  insertRefund,
  refundDestination,
  refundedSoFar,
  type Created,
  type CreateRefundInput,
} from "./create-payout.js";
import { ensureHouseAccount, HOUSE_MERCHANT_ID } from "./house-account.js";
import { refundChain } from "./payout-currency.js";
import type { PayoutActor } from "./payout-types.js";

export interface StrayRefundInput extends Omit<CreateRefundInput, "amount"> {
  /** Default: the stray's amount less its live and completed refunds. */
  amount?: string | undefined;
}

export async function createStrayRefund(
  ctx: Context,
  strayId: string,
  actor: PayoutActor,
  input: StrayRefundInput,
  /** Who asked, from where: the audit row, written in the creation's transaction. */
  origin?: AuditOrigin,
): Promise<Created> {
  const notFound = new AppError("NOT_FOUND", "stray transfer not found");
  if (!isUuid(strayId)) throw notFound;
  const requested = input.amount === undefined ? undefined : amountOf(input.amount);
  // The stray's chain and token never change: read before the checks, locked below. The refund
  // goes out in the stray's currency (migration 0030 records it; older strays are USDT).
  const [source] = await ctx.db
    .select({ chain: strayTransfers.chain, currency: strayTransfers.currency })
    .from(strayTransfers)
    .where(eq(strayTransfers.id, strayId));
  if (!source) throw notFound;
  const paid = refundChain(ctx, { chain: source.chain, currency: source.currency }, input);
  const destination = await refundDestination(ctx, paid.chain, input);
  return ctx.db.transaction(async (tx) => {
    const [stray] = await tx
      .select()
      .from(strayTransfers)
      .where(eq(strayTransfers.id, strayId))
      .for("update");
    if (!stray) throw notFound;
    if (stray.status !== "confirmed") {
      throw new AppError(
        "INVALID_STATE",
        "the stray transfer is not confirmed yet (a fork may still drop it)",
      );
    }
    if (stray.resolution !== null && stray.resolution !== "refunded") {
      throw new AppError("INVALID_STATE", `the stray transfer is already ${stray.resolution}`);
    }
    const refunded = await refundedSoFar(tx, sql`stray_transfer_id = ${stray.id}::uuid`);
    const left = stray.amount - refunded;
    const amount = requested ?? left;
    if (amount <= 0n || amount > left) {
      throw new AppError(
        "REFUND_EXCEEDS_RECEIVED",
        `the stray transfer brought ${formatAmount(stray.amount)} ${paid.currency} and has ${formatAmount(refunded)} refunded or being refunded; at most ${formatAmount(left > 0n ? left : 0n)} more can be refunded`,
      );
    }
    const now = ctx.clock.now();
    const resolved = stray.resolution === null;
    await ensureHouseAccount(ctx, tx);
    if (resolved) {
      await tx
        .update(strayTransfers)
        .set({
          resolution: "refunded",
          resolutionReason: input.reason ?? "refunded",
          resolvedBy: actorRecord(actor),
          resolvedAt: now,
        })
        .where(eq(strayTransfers.id, stray.id));
      await creditMerchant(tx, {
        merchantId: HOUSE_MERCHANT_ID,
        currency: stray.currency,
        amount: stray.amount,
        kind: "stray_received",
        refType: "stray_transfer",
        refId: stray.id,
        at: now,
      });
    }
    return insertRefund(ctx, tx, {
      values: { merchantId: HOUSE_MERCHANT_ID, strayTransferId: stray.id, ...chainColumns(paid) },
      amount,
      destination,
      input,
      actor,
      origin,
      audit: {
        before: { stray_resolution: resolved ? null : "refunded" },
        after: { stray_transfer_id: stray.id, stray_resolution: "refunded" },
      },
    });
  });
}
