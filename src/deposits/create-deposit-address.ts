/**
 * POST /api/v1/deposit-addresses (DESIGN.md 15 and 16): one permanent address per (merchant,
 * customer_ref, chain family). The request names an enabled `chain` (default: the primary chain,
 * tron) and optionally a `currency` that chain takes (default USDT where the chain has it, else its
 * first currency); any other pair is UNSUPPORTED_CURRENCY, before anything is written. An EVM
 * address is one key on every EVM chain, so it serves them all: every enabled token on every enabled
 * chain of its family is credited to it.
 * Idempotent on customer_ref within a family: asking again (for any chain of the family) answers the
 * existing address unchanged (200), whatever callback_url, metadata, chain or currency the repeat
 * carries (an address never changes owner or hooks by replay). Two concurrent first requests meet at
 * the unique (merchant_id, customer_ref, family): the loser's transaction rolls back, its derived
 * index with it, and it answers the winner's address.
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
import { orderChain } from "../payments/create-order.js";
import { displayAddress } from "../chains/address-display.js";
import { CURRENCIES, isChainId, isCurrency, type Currency } from "../chains/chain-types.js";
import { deriveStaticAddress } from "./derive-static-address.js";
import { selectDepositAddresses, type DepositAddressView } from "./deposit-address-view.js";

export interface CreateDepositAddressInput {
  customerRef: string;
  callbackUrl: string;
  metadata?: Record<string, unknown> | null | undefined;
  notifyDetected?: boolean | undefined;
  /** An enabled chain's id; the primary chain when absent. */
  chain?: string | undefined;
  /** A currency the chain takes; USDT where it has it (else its first) when absent. */
  currency?: string | undefined;
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
  const wanted = currencyOf(ctx, input.chain, input.currency);
  const chain = orderChain(ctx, input.chain, wanted);
  const byRef = and(
    eq(depositAddresses.merchantId, merchantId),
    eq(depositAddresses.customerRef, input.customerRef),
    eq(depositAddresses.family, chain.family),
  );

  const existing = await selectDepositAddresses(ctx.db, ctx, byRef);
  if (existing[0]) return { depositAddress: strip(existing[0]), created: false };
  try {
    const id = await ctx.db.transaction(async (tx) => {
      const derived = await deriveStaticAddress(ctx, tx, chain.family);
      const now = ctx.clock.now();
      const inserted = await tx
        .insert(depositAddresses)
        .values({
          id: newId(),
          merchantId,
          customerRef: input.customerRef,
          family: chain.family,
          chain: chain.id,
          currency: wanted,
          addressId: derived.addressId,
          address: derived.address,
          status: "active",
          callbackUrl: input.callbackUrl,
          metadata,
          notifyDetected: input.notifyDetected ?? false,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing({
          target: [depositAddresses.merchantId, depositAddresses.customerRef, depositAddresses.family],
        })
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
          chain: chain.id,
          currency: wanted,
          address: displayAddress(chain.id, derived.address),
          static_index: derived.staticIndex,
          callback_url: input.callbackUrl,
          notify_detected: input.notifyDetected ?? false,
        },
        at: now,
      });
      ctx.log.info(
        {
          depositAddressId: inserted[0].id,
          merchantId,
          family: chain.family,
          staticIndex: derived.staticIndex,
        },
        "static deposit address created",
      );
      return inserted[0].id;
    });
    const [created] = await selectDepositAddresses(ctx.db, ctx, eq(depositAddresses.id, id));
    if (!created) throw new Error("created deposit address not found");
    return { depositAddress: strip(created), created: true };
  } catch (error) {
    if (!(error instanceof LostRace)) throw error;
    const [winner] = await selectDepositAddresses(ctx.db, ctx, byRef);
    if (!winner) throw new Error("deposit address vanished after a lost creation race");
    return { depositAddress: strip(winner), created: false };
  }
}

/**
 * The currency asked for: a known one (else UNSUPPORTED_CURRENCY), or when none is named USDT where
 * the named chain (the primary one when none) takes it, else that chain's first currency.
 */
function currencyOf(ctx: Context, chainName: string | undefined, asked: string | undefined): Currency {
  if (asked !== undefined) {
    if (!isCurrency(asked))
      throw new AppError(
        "UNSUPPORTED_CURRENCY",
        `body.currency: ${JSON.stringify(asked)} is not a currency (one of ${CURRENCIES.join(", ")})`,
      );
    return asked;
  }
  const chain =
    chainName === undefined
      ? ctx.chains.primary
      : isChainId(chainName)
        ? ctx.chains.get(chainName)
        : undefined;
  const currencies = chain?.currencies ?? [];
  return currencies.includes("USDT") ? "USDT" : (currencies[0] ?? "USDT");
}

/** The merchant's view carries no merchant_id. */
export function strip<T extends { merchant_id: string }>(view: T): Omit<T, "merchant_id"> {
  const { merchant_id: _merchantId, ...rest } = view;
  return rest;
}
