/**
 * The payer's side of a refund without an address (DESIGN.md 14): the public page /refund/:token
 * reads the refund by its claim token (only the token's sha256 is stored) and, once, takes the
 * address the payer types, on the refund's chain (checked in that chain's format). The link expires after 7 days; after use it keeps showing the
 * refund's progress but accepts no second address. Setting the address decides where money goes:
 * an audit row (actor: the payer, by the claim page; the client's address) in the same transaction.
 */
import { eq } from "drizzle-orm";
import type { ChainId, Currency } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import { merchants, orders, payouts } from "../db/schema.js";
import { AppError } from "../errors.js";
import { formatAmount } from "../money.js";
import { txExplorerUrl } from "../payments/explorer.js";
import { autoApproves, claimTokenHash } from "./create-payout.js";
import { checkDestination } from "./destination.js";
import { chainOfPayout, displayAddress, payoutNetwork } from "./payout-currency.js";
import type { PayoutRow } from "./payout-types.js";
import { transitionPayout } from "./transition-payout.js";

/** The payer's claim page of a refund without an address, from the token shown once at creation. */
export function claimUrl(ctx: Context, token: string | undefined): string | null {
  return token === undefined ? null : `${ctx.config.publicBaseUrl}/refund/${token}`;
}

export interface RefundClaimView {
  status: PayoutRow["status"];
  amount: string;
  currency: Currency;
  /** The chain the refund is paid on; the page asks for an address of it. */
  chain: ChainId;
  network: string;
  /** The address format of the chain, in words, for the page's hint. */
  address_format: string;
  /** the merchant's name, as the checkout page shows it */
  merchant_name: string;
  merchant_order: string | null;
  address: string | null;
  tx_hash: string | null;
  tx_explorer_url: string | null;
  claim_expires_at: string | null;
  /** the payer may still enter an address */
  claimable: boolean;
}

const PAYER = { kind: "system", label: "payer (claim page)" } as const;

async function findByToken(ctx: Context, token: string): Promise<PayoutRow> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw new AppError("NOT_FOUND", "refund not found");
  const [row] = await ctx.db
    .select()
    .from(payouts)
    .where(eq(payouts.claimTokenHash, claimTokenHash(token)));
  if (!row) throw new AppError("NOT_FOUND", "refund not found");
  return row;
}

function expired(ctx: Context, row: PayoutRow): boolean {
  return row.claimExpiresAt !== null && row.claimExpiresAt.getTime() <= ctx.clock.now().getTime();
}

export async function getRefundClaim(ctx: Context, token: string): Promise<RefundClaimView> {
  const row = await findByToken(ctx, token);
  const [[order], [merchant]] = await Promise.all([
    row.orderId
      ? ctx.db.select({ externalId: orders.externalId }).from(orders).where(eq(orders.id, row.orderId))
      : Promise.resolve([]),
    ctx.db.select({ name: merchants.name }).from(merchants).where(eq(merchants.id, row.merchantId)),
  ]);
  return {
    status: row.status,
    amount: formatAmount(row.amount),
    currency: row.currency,
    chain: row.chain,
    network: payoutNetwork(ctx, row),
    address_format: chainOfPayout(ctx, row)?.address.rule ?? "",
    merchant_name: merchant?.name ?? "",
    merchant_order: order?.externalId ?? null,
    address: displayAddress(ctx, row),
    tx_hash: row.txHash,
    tx_explorer_url: row.txHash ? txExplorerUrl(ctx.config, row.txHash) : null,
    claim_expires_at: row.claimExpiresAt?.toISOString() ?? null,
    claimable: row.status === "awaiting_address" && !expired(ctx, row),
  };
}

export async function submitRefundClaim(
  ctx: Context,
  token: string,
  address: string,
  client: { ip?: string | undefined; userAgent?: string | undefined } = {},
): Promise<RefundClaimView> {
  const found = await findByToken(ctx, token);
  if (found.status !== "awaiting_address") {
    throw new AppError("INVALID_STATE", "this refund already has an address");
  }
  if (expired(ctx, found))
    throw new AppError("CLAIM_EXPIRED", "this refund link has expired; ask the merchant");
  const chain = chainOfPayout(ctx, found);
  if (!chain) {
    throw new AppError(
      "UNSUPPORTED_CURRENCY",
      `this refund is paid on ${found.chain}, which is not enabled now`,
    );
  }
  const destination = await checkDestination(ctx, ctx.db, chain, address);
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx.select().from(payouts).where(eq(payouts.id, found.id)).for("update");
    if (!row || row.status !== "awaiting_address") {
      throw new AppError("INVALID_STATE", "this refund already has an address");
    }
    const now = ctx.clock.now();
    const approved = await autoApproves(ctx, tx, row);
    await transitionPayout(ctx, tx, {
      payout: row,
      to: approved ? "approved" : "pending_approval",
      event: "refund_claimed",
      actor: PAYER,
      payload: { address: destination, auto_approved: approved },
      patch: {
        address: destination,
        claimedAt: now,
        autoApproved: approved,
        ...(approved ? { approvedAt: now } : {}),
      },
    });
    await appendAudit(tx, {
      actor: PAYER,
      action: "refund.claim",
      targetType: "refund",
      targetId: row.id,
      before: { status: row.status, address: null },
      after: {
        status: approved ? "approved" : "pending_approval",
        address: destination,
        auto_approved: approved,
      },
      ...(client.ip === undefined ? {} : { ip: client.ip }),
      ...(client.userAgent === undefined ? {} : { userAgent: client.userAgent }),
      at: now,
    });
  });
  return getRefundClaim(ctx, token);
}
