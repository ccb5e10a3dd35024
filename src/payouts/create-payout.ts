/**
 * Creating refunds and payouts (DESIGN.md 14). Everything is checked before anything is stored
 * (amount, destination, callback URL, the order's refundable amount); the row, its first event and
 * the ledger reservation commit together, so a refusal (INSUFFICIENT_BALANCE,
 * REFUND_EXCEEDS_RECEIVED, EXTERNAL_ID_CONFLICT ...) changes nothing.
 *
 * Approval at creation: created by the merchant, at or below PAYOUT_AUTO_APPROVE_USDT (default 0:
 * never) and within PAYOUT_DAILY_LIMIT_USDT for the merchant's UTC day (checked under a
 * per-merchant lock), a refund or payout is approved at once; otherwise, and always when an
 * operator created it, it waits in pending_approval for an operator (four-eyes, decide-payout.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import { and, eq, sql, type SQL } from "drizzle-orm";
import { appendAudit, type AuditOrigin } from "../audit/append-audit.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { orders, payoutEvents, payouts } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid, newId } from "../ids.js";
import { formatAmount, parseAmount } from "../money.js";
import { assertCallbackUrlAccepted } from "../payments/callback-url.js";
import type { Chain } from "../chains/chain.js";
import type { Currency } from "../chains/chain-types.js";
import { checkDestination } from "./destination.js";
import { payoutChain, refundChain, storedAddress, DEFAULT_PAYOUT_CURRENCY } from "./payout-currency.js";
import { CLAIM_TTL_MS, LIVE_STATUSES, type PayoutActor, type PayoutRow } from "./payout-types.js";
import { reservePayout } from "./transition-payout.js";

export interface CreatePayoutInput {
  external_id: string;
  amount: string;
  address: string;
  /** Default: the primary chain (tron). */
  chain?: string | undefined;
  /** Default: USDT. */
  currency?: string | undefined;
  callback_url?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

export interface CreateRefundInput {
  amount: string;
  address?: string | undefined;
  /** Default: the chain the money came on; the currency is always the one it came in. */
  chain?: string | undefined;
  currency?: string | undefined;
  reason?: string | undefined;
  callback_url?: string | undefined;
}

export interface Created {
  payout: PayoutRow;
  /** false when an earlier request with the same external_id answered (idempotent replay) */
  created: boolean;
  /** refunds without an address: the token of the public claim page, shown once */
  claimToken?: string;
}

export function amountOf(input: string): bigint {
  const micro = parseAmount(input);
  if (micro === null || micro <= 0n) {
    throw new AppError(
      "VALIDATION_ERROR",
      "amount must be a decimal string greater than 0 with at most 6 decimals",
    );
  }
  return micro;
}

export function actorColumns(actor: PayoutActor) {
  return {
    createdByKind: actor.kind,
    createdById: actor.kind === "system" ? null : actor.id,
    createdByLabel: actor.label,
    apiKeyIssuedBy: actor.kind === "merchant" ? (actor.keyIssuedBy ?? null) : null,
  };
}

/** The actor as a payout event records it: who acted, without the key's issuer. */
export function eventActor(actor: PayoutActor): PayoutActor {
  return actor.kind === "system" ? actor : { kind: actor.kind, id: actor.id, label: actor.label };
}

export function claimTokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Advisory-lock class of the daily auto-approve check; the second key is the merchant id's hash. */
const AUTO_APPROVE_LOCK_CLASS = 740_100_103;

/**
 * Whether a refund or payout is approved at creation: one a merchant created (never one an operator
 * or the system created), at or below the auto-approve limit, and within the merchant's daily limit
 * together with what was already auto-approved in the same UTC day. The check holds a per-merchant
 * transaction lock, so concurrent creations are summed one after another and the day's auto-approved
 * total never exceeds PAYOUT_DAILY_LIMIT_USDT; the lock ends with the caller's transaction.
 */
export async function autoApproves(
  ctx: Context,
  tx: Executor,
  payout: Pick<PayoutRow, "merchantId" | "amount" | "createdByKind">,
): Promise<boolean> {
  const { payoutAutoApproveUsdt: limit, payoutDailyLimitUsdt: daily } = ctx.config;
  if (payout.createdByKind !== "merchant") return false;
  if (limit <= 0n || payout.amount > limit) return false;
  if (daily === undefined) return true;
  await queryRows(
    tx,
    sql`SELECT pg_advisory_xact_lock(${AUTO_APPROVE_LOCK_CLASS}, hashtext(${payout.merchantId}))`,
  );
  const now = ctx.clock.now();
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const [row] = await queryRows<{ total: string }>(
    tx,
    sql`SELECT coalesce(sum(amount), 0)::text AS total FROM payouts
        WHERE merchant_id = ${payout.merchantId}::uuid AND auto_approved
          AND approved_at >= ${dayStart.toISOString()}::timestamptz
          AND status NOT IN ('rejected', 'cancelled')`,
  );
  return BigInt(row?.total ?? "0") + payout.amount <= daily;
}

export async function insertPayout(
  ctx: Context,
  tx: Executor,
  values: typeof payouts.$inferInsert,
  actor: PayoutActor,
): Promise<PayoutRow> {
  const now = ctx.clock.now();
  const hasAddress = values.address !== null && values.address !== undefined;
  const approved =
    hasAddress &&
    (await autoApproves(ctx, tx, {
      merchantId: values.merchantId,
      amount: values.amount,
      createdByKind: values.createdByKind,
    }));
  const status = !hasAddress ? "awaiting_address" : approved ? "approved" : "pending_approval";
  const [row] = await tx
    .insert(payouts)
    .values({
      ...values,
      status,
      autoApproved: approved,
      approvedAt: approved ? now : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("payout insert returned no row");
  await tx.insert(payoutEvents).values({
    id: newId(now.getTime()),
    payoutId: row.id,
    eventType: `${row.kind}_created`,
    fromStatus: null,
    toStatus: status,
    actor: eventActor(actor),
    payload: { amount: formatAmount(row.amount), auto_approved: approved },
    createdAt: now,
  });
  await reservePayout(tx, row, now);
  return row;
}

/** POST /api/v1/payouts: idempotent on external_id (same fields -> the same payout). */
export async function createPayout(
  ctx: Context,
  merchantId: string,
  actor: PayoutActor,
  input: CreatePayoutInput,
  /** Who asked, from where: the audit row, written in the creation's transaction (not on a replay). */
  origin?: AuditOrigin,
): Promise<Created> {
  const amount = amountOf(input.amount);
  if (input.callback_url !== undefined) assertCallbackUrlAccepted(ctx.config, input.callback_url);
  const existing = async (tx: Executor) =>
    (
      await tx
        .select()
        .from(payouts)
        .where(
          and(
            eq(payouts.merchantId, merchantId),
            eq(payouts.kind, "payout"),
            eq(payouts.externalId, input.external_id),
          ),
        )
    )[0];
  const replay = (row: PayoutRow): Created => {
    const same =
      row.amount === amount &&
      row.chain === (input.chain ?? ctx.chains.primary.id) &&
      row.currency === (input.currency ?? DEFAULT_PAYOUT_CURRENCY) &&
      row.address === storedAddress(ctx, row, input.address) &&
      row.callbackUrl === (input.callback_url ?? null) &&
      JSON.stringify(row.metadata ?? null) === JSON.stringify(input.metadata ?? null);
    if (!same) {
      throw new AppError(
        "EXTERNAL_ID_CONFLICT",
        `external_id ${input.external_id} was already used with a different amount, chain, currency, address, callback_url or metadata`,
      );
    }
    return { payout: row, created: false };
  };
  // A replay answers before any other check: the payout exists whatever the balance is now.
  const before = await existing(ctx.db);
  if (before) return replay(before);
  const { chain, currency } = payoutChain(ctx, input);
  const address = await checkDestination(ctx, ctx.db, chain, input.address);
  try {
    return await ctx.db.transaction(async (tx) => {
      const row = await insertPayout(
        ctx,
        tx,
        {
          id: newId(ctx.clock.now().getTime()),
          merchantId,
          kind: "payout",
          status: "pending_approval",
          externalId: input.external_id,
          amount,
          ...chainColumns({ chain, currency }),
          address,
          callbackUrl: input.callback_url ?? null,
          metadata: input.metadata ?? null,
          ...actorColumns(actor),
          createdAt: ctx.clock.now(),
          updatedAt: ctx.clock.now(),
        },
        actor,
      );
      if (origin) await auditCreation(tx, origin, row, { after: { external_id: row.externalId } });
      return { payout: row, created: true };
    });
  } catch (error) {
    // Two concurrent first requests: the loser of the unique index answers like a replay.
    if (isUniqueViolation(error)) {
      const row = await existing(ctx.db);
      if (row) return replay(row);
    }
    throw error;
  }
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === "23505") return true;
    if ((e as { cause?: unknown }).cause === e) break;
  }
  return false;
}

/**
 * POST /api/v1/payments/:id/refunds and the admin twin: a refund of (part of) what an order
 * received. The refunds of an order that are not rejected, cancelled or failed never add up to more
 * than its amount_received (the order row is locked while they are summed). Without an address the
 * refund waits for the payer, who gives one on the claim page.
 */
export async function createRefund(
  ctx: Context,
  target: { orderId: string; merchantId?: string },
  actor: PayoutActor,
  input: CreateRefundInput,
  /** Who asked, from where: the audit row, written in the creation's transaction. */
  origin?: AuditOrigin,
): Promise<Created> {
  if (!isUuid(target.orderId)) throw new AppError("NOT_FOUND", "order not found");
  const amount = amountOf(input.amount);
  const ofOrder =
    target.merchantId === undefined
      ? eq(orders.id, target.orderId)
      : and(eq(orders.id, target.orderId), eq(orders.merchantId, target.merchantId));
  // The order's chain and currency never change: read before the checks, locked below for the sum.
  const [source] = await ctx.db
    .select({ chain: orders.chain, currency: orders.currency })
    .from(orders)
    .where(ofOrder);
  if (!source) throw new AppError("NOT_FOUND", "order not found");
  const paid = refundChain(ctx, source, input);
  const destination = await refundDestination(ctx, paid.chain, input);
  return ctx.db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(ofOrder).for("update");
    if (!order) throw new AppError("NOT_FOUND", "order not found");
    const refunded = await refundedSoFar(tx, sql`order_id = ${order.id}::uuid`);
    if (refunded + amount > order.amountReceived) {
      throw new AppError(
        "REFUND_EXCEEDS_RECEIVED",
        `the order received ${formatAmount(order.amountReceived)} ${paid.currency} and has ${formatAmount(refunded)} refunded or being refunded; at most ${formatAmount(order.amountReceived - refunded)} more can be refunded`,
      );
    }
    return insertRefund(ctx, tx, {
      values: { merchantId: order.merchantId, orderId: order.id, ...chainColumns(paid) },
      amount,
      destination,
      input,
      actor,
      origin,
      audit: { after: { order_id: order.id } },
    });
  });
}

/** The payout row's chain, currency and network name. */
export function chainColumns(paid: { chain: Chain; currency: Currency }) {
  return { chain: paid.chain.id, currency: paid.currency, network: paid.chain.network };
}

/** Where a refund goes: a checked address, or none and a fresh claim token for the payer's page. */
export async function refundDestination(
  ctx: Context,
  chain: Chain,
  input: Pick<CreateRefundInput, "address" | "callback_url">,
): Promise<{ address: string | null; token: string | undefined }> {
  if (input.callback_url !== undefined) assertCallbackUrlAccepted(ctx.config, input.callback_url);
  const address =
    input.address === undefined ? null : await checkDestination(ctx, ctx.db, chain, input.address);
  return { address, token: address === null ? randomBytes(32).toString("base64url") : undefined };
}

/** What the refunds matching `where` (not rejected, cancelled or failed) add up to. */
export async function refundedSoFar(tx: Executor, where: SQL): Promise<bigint> {
  const live = LIVE_STATUSES.concat(["completed"]);
  const [sum] = await queryRows<{ total: string }>(
    tx,
    sql`SELECT coalesce(sum(amount), 0)::text AS total FROM payouts
        WHERE ${where} AND kind = 'refund'
          AND status IN (${sql.join(
            live.map((s) => sql`${s}`),
            sql`, `,
          )})`,
  );
  return BigInt(sum?.total ?? "0");
}

interface AuditFields {
  before?: Record<string, unknown>;
  /** added to the row's status, amount and address */
  after: Record<string, unknown>;
}

/**
 * The audit row of a created refund or payout (DESIGN.md 12): `refund.create` / `payout.create`,
 * the actor and where from (a merchant named by its API key prefix, never the key).
 */
async function auditCreation(tx: Executor, origin: AuditOrigin, row: PayoutRow, fields: AuditFields) {
  await appendAudit(tx, {
    actor: origin.actor,
    action: `${row.kind}.create`,
    targetType: row.kind,
    targetId: row.id,
    ...(fields.before === undefined ? {} : { before: fields.before }),
    after: { status: row.status, ...fields.after, amount: formatAmount(row.amount), address: row.address },
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(origin.ip === undefined ? {} : { ip: origin.ip }),
    ...(origin.userAgent === undefined ? {} : { userAgent: origin.userAgent }),
  });
}

/**
 * The tail every refund's creation shares (of an order, of a stray transfer): the row with its
 * claim token's hash when it has no address, its first event and reservation, and the audit row.
 */
export async function insertRefund(
  ctx: Context,
  tx: Executor,
  refund: {
    values: Pick<
      typeof payouts.$inferInsert,
      "merchantId" | "orderId" | "strayTransferId" | "chain" | "currency" | "network"
    >;
    amount: bigint;
    destination: { address: string | null; token: string | undefined };
    input: Pick<CreateRefundInput, "reason" | "callback_url">;
    actor: PayoutActor;
    origin: AuditOrigin | undefined;
    audit: AuditFields;
  },
): Promise<Created> {
  const now = ctx.clock.now();
  const { address, token } = refund.destination;
  const row = await insertPayout(
    ctx,
    tx,
    {
      id: newId(now.getTime()),
      ...refund.values,
      kind: "refund",
      status: "pending_approval",
      amount: refund.amount,
      address,
      reason: refund.input.reason ?? null,
      callbackUrl: refund.input.callback_url ?? null,
      claimTokenHash: token === undefined ? null : claimTokenHash(token),
      claimExpiresAt: token === undefined ? null : new Date(now.getTime() + CLAIM_TTL_MS),
      ...actorColumns(refund.actor),
      createdAt: now,
      updatedAt: now,
    },
    refund.actor,
  );
  if (refund.origin) await auditCreation(tx, refund.origin, row, refund.audit);
  return { payout: row, created: true, ...(token === undefined ? {} : { claimToken: token }) };
}
