/**
 * POST /api/v1/deposit-addresses (DESIGN.md 15): one permanent address per (merchant, customer_ref).
 * Idempotent on customer_ref: asking again answers the existing address unchanged (200), whatever
 * callback_url or metadata the repeat carries (an address never changes owner or hooks by replay).
 * Two concurrent first requests meet at the unique (merchant_id, customer_ref): the loser's
 * transaction rolls back, its derived index with it, and it answers the winner's address.
 */
import { and, eq } from "drizzle-orm";
import { appendAudit } from "../audit/append-audit.js";
import { SYSTEM_ACTOR, type AuditOrigin } from "../audit/audit-types.js";
import type { Context } from "../context.js";
import { depositAddresses } from "../db/schema.js";
import { AppError } from "../errors.js";
import { newId } from "../ids.js";
import { assertCallbackUrlAccepted } from "../payments/callback-url.js";
import { METADATA_MAX_BYTES } from "../payments/create-order.js";
import { deriveStaticAddress } from "./derive-static-address.js";
import { selectDepositAddresses, type DepositAddressView } from "./deposit-address-view.js";

export interface CreateDepositAddressInput {
  customerRef: string;
  callbackUrl: string;
  metadata?: Record<string, unknown> | null | undefined;
  notifyDetected?: boolean | undefined;
}

export interface CreateDepositAddressResult {
  depositAddress: DepositAddressView;
  /** false when the customer_ref already had an address (replay). */
  created: boolean;
}

class LostRace extends Error {}

export async function createDepositAddress(
  ctx: Context,
  merchantId: string,
  input: CreateDepositAddressInput,
  /** Who asked (the audit row's actor); the system when a tool calls it. */
  origin: AuditOrigin = { actor: SYSTEM_ACTOR },
): Promise<CreateDepositAddressResult> {
  if (input.customerRef.length < 1 || input.customerRef.length > 128)
    throw new AppError("INVALID_BODY", "body.customer_ref: must be 1 to 128 characters");
  const metadata = input.metadata ?? null;
  if (metadata !== null && Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES)
    throw new AppError(
      "INVALID_BODY",
      `body.metadata: must serialize to at most ${METADATA_MAX_BYTES} bytes`,
    );
  assertCallbackUrlAccepted(ctx.config, input.callbackUrl);
  const byRef = and(
    eq(depositAddresses.merchantId, merchantId),
    eq(depositAddresses.customerRef, input.customerRef),
  );

  const existing = await selectDepositAddresses(ctx.db, ctx.config, byRef);
  if (existing[0]) return { depositAddress: strip(existing[0]), created: false };
  try {
    const id = await ctx.db.transaction(async (tx) => {
      const derived = await deriveStaticAddress(ctx, tx);
      const now = ctx.clock.now();
      const inserted = await tx
        .insert(depositAddresses)
        .values({
          id: newId(),
          merchantId,
          customerRef: input.customerRef,
          addressId: derived.addressId,
          address: derived.address,
          status: "active",
          callbackUrl: input.callbackUrl,
          metadata,
          notifyDetected: input.notifyDetected ?? false,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing({ target: [depositAddresses.merchantId, depositAddresses.customerRef] })
        .returning({ id: depositAddresses.id });
      if (!inserted[0]) throw new LostRace();
      await appendAudit(tx, {
        ...origin,
        action: "deposit_address.create",
        targetType: "deposit_address",
        targetId: inserted[0].id,
        after: {
          merchant_id: merchantId,
          customer_ref: input.customerRef,
          address: derived.address,
          static_index: derived.staticIndex,
          callback_url: input.callbackUrl,
          notify_detected: input.notifyDetected ?? false,
        },
        at: now,
      });
      ctx.log.info(
        { depositAddressId: inserted[0].id, merchantId, staticIndex: derived.staticIndex },
        "static deposit address created",
      );
      return inserted[0].id;
    });
    const [created] = await selectDepositAddresses(ctx.db, ctx.config, eq(depositAddresses.id, id));
    if (!created) throw new Error("created deposit address not found");
    return { depositAddress: strip(created), created: true };
  } catch (error) {
    if (!(error instanceof LostRace)) throw error;
    const [winner] = await selectDepositAddresses(ctx.db, ctx.config, byRef);
    if (!winner) throw new Error("deposit address vanished after a lost creation race");
    return { depositAddress: strip(winner), created: false };
  }
}

/** The merchant's view carries no merchant_id. */
export function strip<T extends { merchant_id: string }>(view: T): Omit<T, "merchant_id"> {
  const { merchant_id: _merchantId, ...rest } = view;
  return rest;
}
